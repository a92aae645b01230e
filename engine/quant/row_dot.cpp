// SPDX-License-Identifier: MIT
#include "quant/row_dot.h"

#include "core/error.h"
#include "core/half.h"
#include "quant/dequantize.h"

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

/// The N activation rows' two accumulators each, so that two independent multiply-add chains hide the FMA latency.
template <int N> struct Accumulators {
    __m256 a[N][2];
};

/// The activations as the blocks read them.
struct Activations {
    const float* x;
    int64_t cols;
    const float* groupSums; // Q4_K: [N, cols / 32]
};

template <int N> __attribute__((target("avx2,fma,f16c"))) void clear(Accumulators<N>& acc)
{
    for (int j = 0; j < N; ++j)
        acc.a[j][0] = acc.a[j][1] = _mm256_setzero_ps();
}

/// The 8 bytes at p as float32.
__attribute__((target("avx2,fma,f16c"))) inline __m256 widen8(const void* p)
{
    return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64(static_cast<const __m128i*>(p))));
}

/// x[j * cols + at .. + 8].
__attribute__((target("avx2,fma,f16c"))) inline __m256 load(const Activations& in, int j, int64_t at)
{
    return _mm256_loadu_ps(in.x + j * in.cols + at);
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

// block_q8_0 { half d; int8 qs[32]; }: w = q * d (exact in float32: 8 by 11 significant bits), summed as d times the
// block's sum of q * x, so the scale costs one multiply-add per block instead of one multiply per 8 weights. Blocks
// alternate between the two accumulators (Parity).
struct Q8_0Format {
    static constexpr int64_t kElements = 32, kBytes = 34;
    template <int N, int Parity>
    __attribute__((target("avx2,fma,f16c"))) static void block(
        Accumulators<N>& acc, const uint8_t* b, const Activations& in, int64_t at)
    {
        _mm_prefetch(reinterpret_cast<const char*>(b + kPrefetchBytes), _MM_HINT_T0);
        const __m256 d = _mm256_set1_ps(halfF16c(b));
        __m256 q[4];
        for (int k = 0; k < 4; ++k)
            q[k] = _mm256_cvtepi32_ps(
                _mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + 2 + 8 * k))));
        for (int j = 0; j < N; ++j) {
            __m256 s = _mm256_mul_ps(q[0], load(in, j, at));
            for (int k = 1; k < 4; ++k)
                s = _mm256_fmadd_ps(q[k], load(in, j, at + 8 * k), s);
            acc.a[j][Parity] = _mm256_fmadd_ps(d, s, acc.a[j][Parity]);
        }
    }
};

// block_q4_K { half d; half dmin; uint8 scales[12]; uint8 qs[128]; }: 8 groups of 32, w = scale * q - min as ggml's
// dequantize_row_q4_K. Summed as scale times the group's sum of q * x (lower groups of each pair in the first
// accumulator, upper ones in the second), less the 8 minimums times the activations' group sums once per block: no
// per-weight multiply or subtraction.
struct Q4_KFormat {
    static constexpr int64_t kElements = 256, kBytes = 144;

    /// The 8 scales (d * sc) and 8 minimums (dmin * m) of the block at b, as ggml_blocks::groupScale gives them one by
    /// one, unpacked with ggml's word masks (ggml-quants.c, the AVX2 q4_K dot) and widened 8 at a time: the scalar
    /// unpacking took a third of a block's time.
    __attribute__((target("avx2,fma,f16c"))) static void scalesAndMinimums(const uint8_t* b, __m256& scale, __m256& min)
    {
        constexpr uint32_t kLow6 = 0x3f3f3f3f, kLow4 = 0x0f0f0f0f, kLow2 = 0x03030303;
        uint32_t u[4];
        std::memcpy(u, b + 4, 12);
        u[3] = ((u[2] >> 4) & kLow4) | (((u[1] >> 6) & kLow2) << 4); // minimums of groups 4 .. 7
        const uint32_t lowMins = u[1] & kLow6; // minimums of groups 0 .. 3
        u[1] = (u[2] & kLow4) | (((u[0] >> 6) & kLow2) << 4); // scales of groups 4 .. 7
        u[2] = lowMins;
        u[0] &= kLow6; // scales of groups 0 .. 3
        scale = _mm256_mul_ps(_mm256_set1_ps(halfF16c(b)), widen8(u));
        min = _mm256_mul_ps(_mm256_set1_ps(halfF16c(b + 2)), widen8(u + 2));
    }

    /// acc[j][High] += scale * (sum of q * x over the group): the group is the low (High = 0) or high nibbles of the
    /// 32 quant bytes at q, elements at .. at + 31.
    template <int N, int High>
    __attribute__((target("avx2,fma,f16c"))) static void group(
        Accumulators<N>& acc, const uint8_t* q, const float* scale, const Activations& in, int64_t at)
    {
        __m256 s[N];
        for (int l = 0; l < 32; l += 8) {
            const __m256i bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + l)));
            const __m256 w = _mm256_cvtepi32_ps(
                High ? _mm256_srli_epi32(bytes, 4) : _mm256_and_si256(bytes, _mm256_set1_epi32(0xF)));
            for (int j = 0; j < N; ++j)
                s[j] = l == 0 ? _mm256_mul_ps(w, load(in, j, at)) : _mm256_fmadd_ps(w, load(in, j, at + l), s[j]);
        }
        const __m256 sc = _mm256_broadcast_ss(scale);
        for (int j = 0; j < N; ++j)
            acc.a[j][High] = _mm256_fmadd_ps(sc, s[j], acc.a[j][High]);
    }

    template <int N, int>
    __attribute__((target("avx2,fma,f16c"))) static void block(
        Accumulators<N>& acc, const uint8_t* b, const Activations& in, int64_t at)
    {
        for (int64_t line = 0; line < kBytes; line += 64)
            _mm_prefetch(reinterpret_cast<const char*>(b + kPrefetchBytes + line), _MM_HINT_T0);
        __m256 scales, mins;
        scalesAndMinimums(b, scales, mins);
        alignas(32) float scale[8];
        _mm256_store_ps(scale, scales);
        for (int pair = 0; pair < 4; ++pair) {
            const uint8_t* q = b + 16 + 32 * pair;
            group<N, 0>(acc, q, scale + 2 * pair, in, at + 64 * pair);
            group<N, 1>(acc, q, scale + 2 * pair + 1, in, at + 64 * pair + 32);
        }
        for (int j = 0; j < N; ++j)
            acc.a[j][0]
                = _mm256_fnmadd_ps(mins, _mm256_loadu_ps(in.groupSums + j * (in.cols / 32) + at / 32), acc.a[j][0]);
    }
};

// bfloat16 (w = bits << 16) or IEEE half (F16C's vcvtph2ps), exact as dequantizeRow widens them, 16 at a time; the
// last cols % 16 one by one.
template <bool Bf16> struct HalfFormat {
    static constexpr int64_t kElements = 16, kBytes = 32;
    static float scalar(uint16_t bits) { return Bf16 ? bf16ToFloat(bits) : halfToFloat(bits); }
    template <int N, int>
    __attribute__((target("avx2,fma,f16c"))) static void block(
        Accumulators<N>& acc, const uint8_t* b, const Activations& in, int64_t at)
    {
        for (int k = 0; k < 2; ++k) {
            const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16 * k));
            __m256 w;
            if constexpr (Bf16)
                w = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
            else
                w = _mm256_cvtph_ps(bits);
            for (int j = 0; j < N; ++j)
                acc.a[j][k] = _mm256_fmadd_ps(w, load(in, j, at + 8 * k), acc.a[j][k]);
        }
    }
};

/// The dot products of one row in `Format` with N activation rows: whole blocks through the accumulators (two at a
/// time, for the formats that alternate accumulators between blocks), then (half rows of any length) the elements
/// after the last whole block by scalar fused multiply-adds.
template <class Format, int N>
__attribute__((target("avx2,fma,f16c"))) void dots(
    const uint8_t* row, const Activations& in, float* out, int64_t outStride)
{
    Accumulators<N> acc;
    clear(acc);
    constexpr int64_t e = Format::kElements;
    int64_t at = 0;
    for (; at + 2 * e <= in.cols; at += 2 * e, row += 2 * Format::kBytes) {
        Format::template block<N, 0>(acc, row, in, at);
        Format::template block<N, 1>(acc, row + Format::kBytes, in, at + e);
    }
    if (at + e <= in.cols) {
        Format::template block<N, 0>(acc, row, in, at);
        at += e, row += Format::kBytes;
    }
    store(acc, out, outStride);
    if constexpr (requires { Format::scalar(uint16_t {}); }) // the halves; block formats have no tail
        for (; at < in.cols; ++at, row += 2) {
            uint16_t bits;
            std::memcpy(&bits, row, 2);
            for (int j = 0; j < N; ++j)
                out[j * outStride] = std::fma(Format::scalar(bits), in.x[j * in.cols + at], out[j * outStride]);
        }
}

using DotsFunction = void (*)(const uint8_t*, const Activations&, float*, int64_t);

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

RowDotInput::RowDotInput(GgmlType type, const float* x, int64_t cols, int64_t n)
    : m_type(type)
    , m_x(x)
    , m_cols(cols)
    , m_n(n)
{
    if (!hasRowDots(type) || n < 1 || n > kRowDotsMaxRows)
        throw Error("rowDots: no fused kernel for " + std::string(ggmlTypeTraits(type).name) + " and "
            + std::to_string(n) + " rows on this CPU");
    if (type != GgmlType::Q4_K) return;
    const int64_t groups = cols / 32;
    m_groupSums.resize(static_cast<size_t>(n * groups));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t g = 0; g < groups; ++g) {
            double sum = 0;
            for (int64_t i = 0; i < 32; ++i)
                sum += static_cast<double>(x[j * cols + 32 * g + i]);
            m_groupSums[static_cast<size_t>(j * groups + g)] = static_cast<float>(sum);
        }
}

void rowDots(const RowDotInput& x, const uint8_t* row, float* out, int64_t outStride)
{
#if defined(__x86_64__)
    const GgmlType type = x.type();
    const DotsFunction f = type == GgmlType::Q8_0 ? forFormat<Q8_0Format>(x.rows())
        : type == GgmlType::Q4_K                  ? forFormat<Q4_KFormat>(x.rows())
        : type == GgmlType::BF16                  ? forFormat<HalfFormat<true>>(x.rows())
                                                  : forFormat<HalfFormat<false>>(x.rows());
    f(row, Activations { x.x(), x.cols(), x.groupSums() }, out, outStride);
#else
    (void)x, (void)row, (void)out, (void)outStride;
#endif
}

} // namespace attn
