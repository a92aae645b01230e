// SPDX-License-Identifier: MIT
#include "quant/row_dot.h"

#include "core/error.h"
#include "quant/ggml_blocks.h"

#include <cmath>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace attn {
namespace {

using ggml_blocks::groupScale;
using ggml_blocks::half;
using ggml_blocks::ScaleMin;

#if defined(__x86_64__)
/// The N activation rows' two accumulators each: a[j][0] takes the even 8-element groups, a[j][1] the odd ones, so
/// that two independent multiply-add chains hide the FMA latency.
template <int N> struct Accumulators {
    __m256 a[N][2];
};

template <int N> __attribute__((target("avx2,fma"))) void clear(Accumulators<N>& acc)
{
    for (int j = 0; j < N; ++j)
        acc.a[j][0] = acc.a[j][1] = _mm256_setzero_ps();
}

/// acc[j][parity] += w * x[j * cols + at .. + 8] for every row j.
template <int N>
__attribute__((target("avx2,fma"))) inline void madd(
    Accumulators<N>& acc, int parity, __m256 w, const float* x, int64_t cols, int64_t at)
{
    for (int j = 0; j < N; ++j)
        acc.a[j][parity] = _mm256_fmadd_ps(w, _mm256_loadu_ps(x + j * cols + at), acc.a[j][parity]);
}

template <int N>
__attribute__((target("avx2,fma"))) void store(const Accumulators<N>& acc, float* out, int64_t outStride)
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
template <int N>
__attribute__((target("avx2,fma"))) void dotsQ8_0(
    const uint8_t* row, int64_t cols, const float* x, float* out, int64_t outStride)
{
    Accumulators<N> acc;
    clear(acc);
    for (int64_t at = 0; at < cols; at += 32, row += 34) {
        const __m256 d = _mm256_set1_ps(half(row));
        for (int k = 0; k < 4; ++k) {
            const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + 2 + 8 * k));
            madd(acc, k & 1, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q)), d), x, cols, at + 8 * k);
        }
    }
    store(acc, out, outStride);
}

// block_q4_K { half d; half dmin; uint8 scales[12]; uint8 qs[128]; }: 8 groups of 32, w = scale * q - min, as
// ggml's dequantize_row_q4_K (the low nibbles of 32 bytes are one group, their high nibbles the next).
template <int N>
__attribute__((target("avx2,fma"))) void dotsQ4_K(
    const uint8_t* row, int64_t cols, const float* x, float* out, int64_t outStride)
{
    Accumulators<N> acc;
    clear(acc);
    const __m256i low = _mm256_set1_epi32(0xF);
    for (int64_t at = 0; at < cols; at += 256, row += 144) {
        const float d = half(row), dmin = half(row + 2);
        const uint8_t* q = row + 16;
        for (int is = 0; is < 8; is += 2, q += 32) {
            const ScaleMin lo = groupScale(row + 4, is, d, dmin), hi = groupScale(row + 4, is + 1, d, dmin);
            const __m256 loScale = _mm256_set1_ps(lo.scale), loMin = _mm256_set1_ps(lo.min);
            const __m256 hiScale = _mm256_set1_ps(hi.scale), hiMin = _mm256_set1_ps(hi.min);
            const int64_t group = at + 32 * is;
            for (int l = 0; l < 32; l += 8) {
                const __m256i bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + l)));
                const __m256 qlo = _mm256_cvtepi32_ps(_mm256_and_si256(bytes, low));
                const __m256 qhi = _mm256_cvtepi32_ps(_mm256_srli_epi32(bytes, 4));
                madd(acc, 0, _mm256_sub_ps(_mm256_mul_ps(loScale, qlo), loMin), x, cols, group + l);
                madd(acc, 1, _mm256_sub_ps(_mm256_mul_ps(hiScale, qhi), hiMin), x, cols, group + 32 + l);
            }
        }
    }
    store(acc, out, outStride);
}

// bfloat16: w = bits << 16, as dequantizeRow widens it; the last cols % 16 elements by scalar fused multiply-adds.
template <int N>
__attribute__((target("avx2,fma"))) void dotsBf16(
    const uint8_t* row, int64_t cols, const float* x, float* out, int64_t outStride)
{
    Accumulators<N> acc;
    clear(acc);
    int64_t at = 0;
    for (; at + 16 <= cols; at += 16)
        for (int k = 0; k < 2; ++k) {
            const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + 2 * (at + 8 * k)));
            madd(acc, k, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16)), x, cols, at + 8 * k);
        }
    store(acc, out, outStride);
    for (; at < cols; ++at) {
        uint16_t bits;
        std::memcpy(&bits, row + 2 * at, 2);
        for (int j = 0; j < N; ++j)
            out[j * outStride] = std::fma(bf16ToFloat(bits), x[j * cols + at], out[j * outStride]);
    }
}

using DotsFunction = void (*)(const uint8_t*, int64_t, const float*, float*, int64_t);

/// The kernel for n activation rows (1 .. kRowDotsMaxRows).
template <DotsFunction... Kernels> DotsFunction forRows(int64_t n)
{
    const DotsFunction kernels[] = { Kernels... };
    return kernels[n - 1];
}
#endif

} // namespace

bool hasRowDots(GgmlType type)
{
#if defined(__x86_64__)
    static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return available && (type == GgmlType::Q8_0 || type == GgmlType::Q4_K || type == GgmlType::BF16);
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
    const DotsFunction f = type == GgmlType::Q8_0 ? forRows<dotsQ8_0<1>, dotsQ8_0<2>, dotsQ8_0<3>, dotsQ8_0<4>>(n)
        : type == GgmlType::Q4_K                  ? forRows<dotsQ4_K<1>, dotsQ4_K<2>, dotsQ4_K<3>, dotsQ4_K<4>>(n)
                                                  : forRows<dotsBf16<1>, dotsBf16<2>, dotsBf16<3>, dotsBf16<4>>(n);
    f(row, cols, x, out, outStride);
#else
    (void)row, (void)cols, (void)x, (void)out, (void)outStride;
#endif
}

} // namespace attn
