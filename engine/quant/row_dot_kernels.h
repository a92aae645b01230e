// SPDX-License-Identifier: MIT
#pragma once
// The fused row dot products of row_dot.h, written once over a register type V of V::kWidth float lanes (8: AVX2,
// 16: AVX-512) for the two files that instantiate them after their `#pragma GCC target`. Everything here is a
// template over V, so that each file's instantiations are its own code, compiled for its instruction set.
//
// The order of every sum is defined over 16 lanes. Lane l (0 .. 15) of an activation row's sum takes the products
// named below, in the order named; an AVX-512 register holds lanes 0 .. 15, AVX2 two registers, lanes 0 .. 7 and
// 8 .. 15, side by side in one pass over the row (each block's scales widened once for both), or for Q4_K with 3 or
// 4 activation rows in a pass each over every 16 blocks, the second reading their bytes and the scales the first
// widened from L1 (Q4_K::kOnePassRows). The 16 lanes are then
// added as (l + (l + 8)) for l < 8 and those 8 pairwise ((0 + 4) + (2 + 6)) + ((1 + 5) + (3 + 7)). Every step is one
// IEEE float32 multiply, add or fused multiply-add, so both instruction sets give the same bits, and so does a scalar
// transcription (tests: RowDotIsas). Per format, with x the activations and [a, b) element ranges:
// - Q8_0 (32 per block, w = d * q): a block's sum s = fma(q[16 + l], x[16 + l], q[l] * x[l]); blocks in pairs,
//   acc += fma(d1, s1, d0 * s0); an unpaired last block, acc += d0 * s0.
// - Q4_K (256 per block, 8 groups of 32, w = scale * q - min): group g's sum
//   s_g = fma(q[32 g + 16 + l], x[32 g + 16 + l], q[32 g + l] * x[32 g + l]); even = scale0 * s0, then
//   fma(scale_g, s_g, even) for g = 2, 4, 6; odd the same over 1, 3, 5, 7; u = even + odd; lanes l < 8 then
//   u = fma(-min_l, (the activations' sum over group l), u); acc += u.
// - BF16 / F16 (w widened exactly): in chunks of 32, acc += fma(w[16 + l], x[16 + l], w[l] * x[l]); a last chunk of
//   16, acc = fma(w[l], x[l], acc); the last cols % 16 elements are fused into the total one by one.
// The dependency carried from block to block is one addition: the rest of a block's arithmetic overlaps the next.
#include "quant/ggml_type.h"
#include "quant/row_dot_isa.h"

#include <cstdint>
#include <cstring>
#include <immintrin.h>

namespace attn::row_dot {

/// How far ahead of the block being multiplied its row's bytes are prefetched: the rows of a product lie one after
/// the other and a decode step reads each byte once, so without it every block waits for its cache lines (a quarter
/// of the time in the loads, perf, Q4_K and Q8_0 at Llama-3.2-1B's shape). A few microseconds of reading: one thread
/// over 512 MiB read 20-26 % more per second than 1 KiB ahead (Q4_K, Q8_0 on AVX-512), BF16 33 % more than with none;
/// 8 KiB ahead was no better.
constexpr int64_t kPrefetchBytes = 4096;

template <class V> struct Kernels {
    using Reg = typename V::Reg;
    /// Registers per 16 lanes, and lanes per register.
    static constexpr int kHalves = 16 / V::kWidth, kLanes = V::kWidth;
    /// Each activation row's 16-lane sums, lanes [kLanes h, kLanes (h + 1)) in register h.
    template <int N> using Sums = Reg[N][kHalves];

    static void prefetch(const uint8_t* p) { _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0); }

    /// A block's IEEE half scale at p by F16C, as exact as the software widening. It widens the 8 halves at p (the
    /// scale and the 14 bytes after it, all inside the block) straight from memory: vcvtph2ps from a register takes
    /// the shuffle port the quant widening needs, and moving the 2 bytes into a register takes it once more.
    static float halfScale(const uint8_t* p)
    {
        return _mm256_cvtss_f32(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    }

    /// x[j, at + lane0 ..] of the pass's lanes.
    static const float* activations(const Activations& in, int j, int64_t at, int lane0)
    {
        return in.x + j * in.cols + at + lane0;
    }

    struct Q8_0 {
        static constexpr int64_t kElements = 32, kBytes = 34;

        /// Block b's two halves of quants in the lanes [lane0, lane0 + V::kWidth).
        struct Quants {
            Reg q0, q1;
            Quants(const uint8_t* b, int lane0)
                : q0(V::signedBytes(b + 2 + lane0))
                , q1(V::signedBytes(b + 18 + lane0))
            {
            }
            Reg sum(const float* x) const { return V::fma(q1, V::load(x + 16), V::mul(q0, V::load(x))); }
        };

        template <int N> static void pass(const uint8_t* b, const Activations& in, Sums<N>& acc)
        {
            const int64_t blocks = in.cols / kElements;
            int64_t at = 0;
            for (int64_t k = 0; k + 2 <= blocks; k += 2, at += 2 * kElements, b += 2 * kBytes) {
                prefetch(b + kPrefetchBytes);
                prefetch(b + kBytes + kPrefetchBytes);
                const Reg d0 = V::broadcast(halfScale(b)), d1 = V::broadcast(halfScale(b + kBytes));
                for (int h = 0; h < kHalves; ++h) {
                    const Quants b0(b, kLanes * h), b1(b + kBytes, kLanes * h);
                    for (int j = 0; j < N; ++j) {
                        const float* x = activations(in, j, at, kLanes * h);
                        acc[j][h] = V::add(acc[j][h], V::fma(d1, b1.sum(x + kElements), V::mul(d0, b0.sum(x))));
                    }
                }
            }
            if (blocks % 2 != 0) {
                const Reg d0 = V::broadcast(halfScale(b));
                for (int h = 0; h < kHalves; ++h) {
                    const Quants b0(b, kLanes * h);
                    for (int j = 0; j < N; ++j)
                        acc[j][h] = V::add(acc[j][h], V::mul(d0, b0.sum(activations(in, j, at, kLanes * h))));
                }
            }
        }
    };

    struct Q4_K {
        static constexpr int64_t kElements = 256, kBytes = 144;
        /// The most activation rows whose even and odd sums of both AVX2 registers fit its 16 with the quants (3 or 4
        /// side by side spill: 411 and 504 instructions per block, callgrind, against 362 and 435 in two passes).
        static constexpr int kOnePassRows = 2;

        /// The 8 scales (d * sc) at scales[0 .. 7] and the 8 minimums (dmin * m) at scales[8 .. 15] of the block at b,
        /// as ggml_blocks::groupScale gives them one by one: unpacked with ggml's word masks (ggml-quants.c, the AVX2
        /// q4_K dot) in general registers (the scalar unpacking by bytes took a third of a block's time), moved to the
        /// vector unit as 16 bytes (from memory, 4-byte stores read by a wider load miss the store forwarding: a fifth
        /// of a block's time, perf annotate) and widened there (V::widenScales; d and dmin by one vcvtph2ps).
        static void scalesAndMinimums(const uint8_t* b, float* scales)
        {
            constexpr uint32_t kLow6 = 0x3f3f3f3f, kLow4 = 0x0f0f0f0f, kLow2 = 0x03030303;
            uint64_t u01; // the 12 bytes by two loads (into an array they were copied to the stack as well)
            uint32_t u2;
            std::memcpy(&u01, b + 4, 8);
            std::memcpy(&u2, b + 12, 4);
            const auto u0 = static_cast<uint32_t>(u01), u1 = static_cast<uint32_t>(u01 >> 32);
            const uint32_t scales03 = u0 & kLow6, mins03 = u1 & kLow6;
            const uint32_t scales47 = (u2 & kLow4) | (((u0 >> 6) & kLow2) << 4);
            const uint32_t mins47 = ((u2 >> 4) & kLow4) | (((u1 >> 6) & kLow2) << 4);
            auto scaleBytes = static_cast<long long>(scales03 | (static_cast<uint64_t>(scales47) << 32));
            auto minBytes = static_cast<long long>(mins03 | (static_cast<uint64_t>(mins47) << 32));
            asm("" : "+r"(scaleBytes), "+r"(minBytes)); // GCC 12 otherwise masks in 13 vector instructions
            V::widenScales(
                scaleBytes, minBytes, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b))), scales);
            // The compiler no longer knows what the array holds, so each scale reaches its register by a broadcast
            // load (a load port) instead of shuffles of the vector it was stored from: GCC 12 otherwise makes 16 (AVX2)
            // or 14 (AVX-512) per block on the port the quant widening needs (objdump; llvm-mca: 12 % of an AVX2
            // block's cycles, 15 % of an AVX-512 one's).
            asm("" : "+m"(*reinterpret_cast<float(*)[16]>(scales)));
        }

        /// Groups 2 p (low nibbles) and 2 p + 1 (high nibbles) of the 32 quant bytes at q into even and odd.
        template <int N, bool First>
        static void pairOfGroups(const uint8_t* q, const float* scale, const Activations& in, int64_t at, int lane0,
            Reg (&even)[N], Reg (&odd)[N])
        {
            Reg low0, high0, low1, high1;
            V::nibbles(q + lane0, low0, high0);
            V::nibbles(q + 16 + lane0, low1, high1);
            const Reg se = V::broadcast(scale[0]), so = V::broadcast(scale[1]);
            for (int j = 0; j < N; ++j) {
                const float* x = activations(in, j, at, lane0);
                const Reg sLow = V::fma(low1, V::load(x + 16), V::mul(low0, V::load(x)));
                const Reg sHigh = V::fma(high1, V::load(x + 48), V::mul(high0, V::load(x + 32)));
                even[j] = First ? V::mul(se, sLow) : V::fma(se, sLow, even[j]);
                odd[j] = First ? V::mul(so, sHigh) : V::fma(so, sHigh, odd[j]);
            }
        }

        /// Blocks [at, end) of the row (b: the first) into the sums of halves [H0, H1), block k's scales at
        /// scales + Stride * k: widened here (Widen) or read as an earlier pass widened them.
        template <int N, int H0, int H1, bool Widen, int Stride>
        static void blocks(
            const uint8_t* b, const Activations& in, Sums<N>& acc, int64_t at, int64_t end, float* scales)
        {
            for (; at < end; at += kElements, b += kBytes, scales += Stride) {
                if constexpr (H0 == 0)
                    for (int64_t line = 0; line < kBytes; line += 64)
                        prefetch(b + kPrefetchBytes + line);
                if constexpr (Widen) scalesAndMinimums(b, scales);
                for (int h = H0; h < H1; ++h) {
                    Reg even[N], odd[N];
                    pairOfGroups<N, true>(b + 16, scales, in, at, kLanes * h, even, odd);
#pragma GCC unroll 3
                    for (int p = 1; p < 4; ++p)
                        pairOfGroups<N, false>(b + 16 + 32 * p, scales + 2 * p, in, at + 64 * p, kLanes * h, even, odd);
                    for (int j = 0; j < N; ++j) {
                        Reg u = V::add(even[j], odd[j]);
                        if (h == 0)
                            u = V::subtractFromFirst8(u, scales + 8, in.groupSums + j * (in.cols / 32) + at / 32);
                        acc[j][h] = V::add(acc[j][h], u);
                    }
                }
            }
        }

        /// Blocks of the row per segment, for the two-pass case: 16 blocks' bytes (2.3 KiB) and scales (1 KiB) stay in
        /// L1 from the first pass to the second.
        static constexpr int64_t kSegmentBlocks = 16;

        template <int N> static void pass(const uint8_t* row, const Activations& in, Sums<N>& acc)
        {
            if constexpr (kHalves == 1 || N <= kOnePassRows) {
                alignas(64) float scales[16]; // 8 scales, then 8 minimums; each block's in turn
                blocks<N, 0, kHalves, true, 0>(row, in, acc, 0, in.cols, scales);
            } else { // a pass per register over each segment, the second reading the scales the first widened
                alignas(64) float scales[kSegmentBlocks * 16];
                for (int64_t at = 0; at < in.cols; at += kSegmentBlocks * kElements, row += kSegmentBlocks * kBytes) {
                    const int64_t end
                        = at + kSegmentBlocks * kElements < in.cols ? at + kSegmentBlocks * kElements : in.cols;
                    blocks<N, 0, 1, true, 16>(row, in, acc, at, end, scales);
                    blocks<N, 1, 2, false, 16>(row, in, acc, at, end, scales);
                }
            }
        }
    };

    template <bool Bf16> struct Half {
        static constexpr int64_t kChunk = 16;

        template <int N> static void pass(const uint8_t* row, const Activations& in, Sums<N>& acc)
        {
            int64_t at = 0;
            for (; at + 2 * kChunk <= in.cols; at += 2 * kChunk) {
                prefetch(row + 2 * at + kPrefetchBytes);
                for (int h = 0; h < kHalves; ++h) {
                    const Reg w0 = V::template halves<Bf16>(row + 2 * (at + kLanes * h));
                    const Reg w1 = V::template halves<Bf16>(row + 2 * (at + kChunk + kLanes * h));
                    for (int j = 0; j < N; ++j) {
                        const float* x = activations(in, j, at, kLanes * h);
                        acc[j][h] = V::add(acc[j][h], V::fma(w1, V::load(x + kChunk), V::mul(w0, V::load(x))));
                    }
                }
            }
            if (at + kChunk <= in.cols)
                for (int h = 0; h < kHalves; ++h) {
                    const Reg w0 = V::template halves<Bf16>(row + 2 * (at + kLanes * h));
                    for (int j = 0; j < N; ++j)
                        acc[j][h] = V::fma(w0, V::load(activations(in, j, at, kLanes * h)), acc[j][h]);
                }
        }

        /// The last cols % 16 products, fused into the totals one by one.
        static void tail(const uint8_t* row, const Activations& in, float* out, int64_t outStride, int n)
        {
            for (int64_t at = in.cols - in.cols % kChunk; at < in.cols; ++at) {
                uint16_t bits;
                std::memcpy(&bits, row + 2 * at, 2);
                const float w = Bf16 ? widenBf16(bits) : _cvtsh_ss(bits);
                for (int j = 0; j < n; ++j)
                    out[j * outStride] = __builtin_fmaf(w, in.x[j * in.cols + at], out[j * outStride]);
            }
        }

        static float widenBf16(uint16_t bits)
        {
            const uint32_t wide = static_cast<uint32_t>(bits) << 16;
            float w;
            std::memcpy(&w, &wide, 4);
            return w;
        }
    };

    /// The 8 lanes (l + (l + 8)) added pairwise.
    static float total(__m256 v)
    {
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_movehdup_ps(s));
        return _mm_cvtss_f32(s);
    }

    /// Each activation row's 16 lanes, registers h = 0 .. kHalves - 1 side by side (Q4_K on AVX2 with more than
    /// Q4_K::kOnePassRows activation rows: a pass per register). Halves are compile-time indices, so the sums stay in
    /// registers (an array indexed by a run-time pass kept them on the stack: a store-forwarding round trip in the
    /// chain carried from block to block).
    template <class Format, int N>
    static void dots(const uint8_t* row, const Activations& in, float* out, int64_t outStride)
    {
        Sums<N> acc;
        for (int j = 0; j < N; ++j)
            for (int h = 0; h < kHalves; ++h)
                acc[j][h] = V::zero();
        Format::template pass<N>(row, in, acc);
        for (int j = 0; j < N; ++j)
            out[j * outStride] = total(V::foldHalves(acc[j][0], acc[j][kHalves - 1]));
        if constexpr (requires { Format::tail(row, in, out, outStride, N); }) Format::tail(row, in, out, outStride, N);
    }

    template <class Format> static DotsFunction forRows(int64_t n)
    {
        const DotsFunction kernels[] = { dots<Format, 1>, dots<Format, 2>, dots<Format, 3>, dots<Format, 4> };
        return kernels[n - 1];
    }

    static DotsFunction forType(GgmlType type, int64_t n)
    {
        switch (type) {
        case GgmlType::Q8_0:
            return forRows<Q8_0>(n);
        case GgmlType::Q4_K:
            return forRows<Q4_K>(n);
        case GgmlType::BF16:
            return forRows<Half<true>>(n);
        case GgmlType::F16:
            return forRows<Half<false>>(n);
        default:
            return nullptr;
        }
    }
};

} // namespace attn::row_dot
