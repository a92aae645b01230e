// SPDX-License-Identifier: MIT
#include "quant/row_dot.h"

#include "core/error.h"
#include "quant/dequantize.h"
#include "quant/ggml_blocks.h"

#include <cmath>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace attn {
namespace {

#if defined(__x86_64__)
/// A block's IEEE half scale at p by F16C's vcvtph2ps: the exact widening ggml_blocks::half() computes in software, one
/// instruction instead of a branchy bit shuffle per block (which cost a seventh of a Q8_0 row's time).
__attribute__((target("avx2,fma,f16c"))) inline float halfF16c(const uint8_t* p)
{
    uint16_t h;
    std::memcpy(&h, p, 2);
    return _cvtsh_ss(h);
}

/// How far ahead of the block being multiplied its row's bytes are prefetched: the rows of a product lie one after
/// the other, and a decode step reads each byte once, so without it every block waits for its cache lines (a quarter
/// of the time in the loads, perf, Q4_K and Q8_0 at Llama-3.2-1B's shape). About a microsecond of reading at a core's
/// share of the bandwidth.
constexpr int64_t kPrefetchBytes = 1024;

/// The N activation rows' two accumulators each: a[j][0] takes the even 8-element groups, a[j][1] the odd ones, so
/// that two independent multiply-add chains hide the FMA latency.
template <int N> struct Accumulators {
    __m256 a[N][2];
};

template <int N> __attribute__((target("avx2,fma,f16c"))) void clear(Accumulators<N>& acc)
{
    for (int j = 0; j < N; ++j)
        acc.a[j][0] = acc.a[j][1] = _mm256_setzero_ps();
}

/// acc[j][parity] += w * x[j * cols + at .. + 8] for every row j.
template <int N>
__attribute__((target("avx2,fma,f16c"))) inline void madd(
    Accumulators<N>& acc, int parity, __m256 w, const float* x, int64_t cols, int64_t at)
{
    for (int j = 0; j < N; ++j)
        acc.a[j][parity] = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + j * cols + at), acc.a[j][parity]);
}

template <int N>
__attribute__((target("avx2,fma,f16c"))) void store(const Accumulators<N>& acc, float* out, int64_t outStride)
{
    for (int j = 0; j < N; ++j) {
        const __m256 v = _mm256_add_ps(acc.a[j][0], acc.a[j][1]);
        __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        s = _mm_add_ss(s, _mm_movehdup_ps(s));
        out[j * outStride] = _mm_cvtss_f32(s);
    }
}

// block_q8_0 { half d; int8 qs[32]; }: w = q * d, one multiply as ggml's dequantize_row_q8_0.
struct Q8_0Format {
    static constexpr int64_t kElements = 32, kBytes = 34;
    template <int N>
    __attribute__((target("avx2,fma,f16c"))) static void block(
        Accumulators<N>& acc, const uint8_t* b, const float* x, int64_t cols, int64_t at)
    {
        _mm_prefetch(reinterpret_cast<const char*>(b + kPrefetchBytes), _MM_HINT_T0);
        const __m256 d = _mm256_set1_ps(halfF16c(b));
        for (int k = 0; k < 4; ++k) {
            const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + 2 + 8 * k));
            madd(acc, k & 1, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q)), d), x, cols, at + 8 * k);
        }
    }
};

// block_q4_K: 8 groups of 32, w = scale * q - min, as ggml's dequantize_row_q4_K (ggml_blocks::q4kWiden). The 8
// scales and minimums are unpacked once per block (d * sc, dmin * m: the products dequantizeRow forms).
struct Q4_KFormat {
    static constexpr int64_t kElements = 256, kBytes = 144;
    template <int N>
    __attribute__((target("avx2,fma,f16c"))) static void block(
        Accumulators<N>& acc, const uint8_t* b, const float* x, int64_t cols, int64_t at)
    {
        for (int64_t line = 0; line < kBytes; line += 64)
            _mm_prefetch(reinterpret_cast<const char*>(b + kPrefetchBytes + line), _MM_HINT_T0);
        const float d = halfF16c(b), dmin = halfF16c(b + 2);
        float scale[8], min[8];
        for (int g = 0; g < 8; ++g) {
            const ggml_blocks::ScaleMin sm = ggml_blocks::groupScale(b + 4, g, d, dmin);
            scale[g] = sm.scale;
            min[g] = sm.min;
        }
        const uint8_t* q = b + 16;
        for (int is = 0; is < 8; is += 2, q += 32) {
            const ggml_blocks::Q4_KGroupPair g { _mm256_broadcast_ss(&scale[is]), _mm256_broadcast_ss(&min[is]),
                _mm256_broadcast_ss(&scale[is + 1]), _mm256_broadcast_ss(&min[is + 1]) };
            for (int l = 0; l < 32; l += 8) {
                __m256 lo, hi;
                ggml_blocks::q4kWiden(g, q + l, lo, hi);
                madd(acc, 0, lo, x, cols, at + 32 * is + l);
                madd(acc, 1, hi, x, cols, at + 32 * is + 32 + l);
            }
        }
    }
};

// bfloat16 (w = bits << 16) or IEEE half (F16C's vcvtph2ps), exact as dequantizeRow widens them, 16 at a time; the
// last cols % 16 one by one.
template <bool Bf16> struct HalfFormat {
    static constexpr int64_t kElements = 16, kBytes = 32;
    static float scalar(uint16_t bits) { return Bf16 ? bf16ToFloat(bits) : halfToFloat(bits); }
    template <int N>
    __attribute__((target("avx2,fma,f16c"))) static void block(
        Accumulators<N>& acc, const uint8_t* b, const float* x, int64_t cols, int64_t at)
    {
        for (int k = 0; k < 2; ++k) {
            const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * k));
            __m256 w;
            if constexpr (Bf16)
                w = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
            else
                w = _mm256_cvtph_ps(bits);
            madd(acc, k, w, x, cols, at + 8 * k);
        }
    }
};

/// The dot products of one row in `Format` with N activation rows: whole blocks through the accumulators, then (half
/// rows of any length) the elements after the last whole block by scalar fused multiply-adds.
template <class Format, int N>
__attribute__((target("avx2,fma,f16c"))) void dots(
    const uint8_t* row, int64_t cols, const float* x, float* out, int64_t outStride)
{
    Accumulators<N> acc;
    clear(acc);
    int64_t at = 0;
    for (; at + Format::kElements <= cols; at += Format::kElements, row += Format::kBytes)
        Format::template block<N>(acc, row, x, cols, at);
    store(acc, out, outStride);
    if constexpr (requires { Format::scalar(uint16_t {}); }) // the halves; block formats have no tail
        for (; at < cols; ++at, row += 2) {
            uint16_t bits;
            std::memcpy(&bits, row, 2);
            for (int j = 0; j < N; ++j)
                out[j * outStride] = std::fma(Format::scalar(bits), x[j * cols + at], out[j * outStride]);
        }
}

using DotsFunction = void (*)(const uint8_t*, int64_t, const float*, float*, int64_t);

/// The kernel for n activation rows (1 .. kRowDotsMaxRows).
template <class Format> DotsFunction forFormat(int64_t n)
{
    const DotsFunction kernels[] = { dots<Format, 1>, dots<Format, 2>, dots<Format, 3>, dots<Format, 4> };
    return kernels[n - 1];
}
#endif

} // namespace

bool hasRowDots(GgmlType type)
{
#if defined(__x86_64__)
    static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpuHasF16c();
    return available
        && (type == GgmlType::Q8_0 || type == GgmlType::Q4_K || type == GgmlType::BF16 || type == GgmlType::F16);
#else
    (void)type;
    return false;
#endif
}

void rowDots(GgmlType type, const uint8_t* row, int64_t cols, const float* x, int64_t n, float* out, int64_t outStride)
{
    if (!hasRowDots(type) || n < 1 || n > kRowDotsMaxRows)
        throw Error("rowDots: no fused kernel for " + std::string(ggmlTypeTraits(type).name) + " and "
            + std::to_string(n) + " rows on this CPU");
#if defined(__x86_64__)
    const DotsFunction f = type == GgmlType::Q8_0 ? forFormat<Q8_0Format>(n)
        : type == GgmlType::Q4_K                  ? forFormat<Q4_KFormat>(n)
        : type == GgmlType::BF16                  ? forFormat<HalfFormat<true>>(n)
                                                  : forFormat<HalfFormat<false>>(n);
    f(row, cols, x, out, outStride);
#else
    (void)row, (void)cols, (void)x, (void)out, (void)outStride;
#endif
}

} // namespace attn
