// SPDX-License-Identifier: MIT
#include "attention/softmax_avx2.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace attn {

#if defined(__x86_64__)
namespace {

/// exp of eight floats: Eigen's pexp_float (Cephes: 2^m * p(r), r = x - m ln 2 in two parts, a degree-6
/// polynomial), with fused multiply-adds. The engine is built for baseline x86-64, so Eigen's own exp runs four SSE
/// lanes without FMA; this one rounds within an ulp or two of it. 2^m is built in the exponent bits: m <= -127
/// (x < -87.3, a term below 1e-38 of a softmax row whose largest term is 1) gives 0 instead of a denormal.
__attribute__((target("avx2,fma"))) __m256 exp8(__m256 x)
{
    x = _mm256_max_ps(_mm256_min_ps(x, _mm256_set1_ps(88.723f)), _mm256_set1_ps(-88.723f));
    const __m256 m = _mm256_floor_ps(_mm256_fmadd_ps(x, _mm256_set1_ps(1.44269504088896341f), _mm256_set1_ps(0.5f)));
    __m256 r = _mm256_fmadd_ps(m, _mm256_set1_ps(-0.693359375f), x);
    r = _mm256_fmadd_ps(m, _mm256_set1_ps(2.12194440e-4f), r);
    const __m256 r2 = _mm256_mul_ps(r, r), r3 = _mm256_mul_ps(r2, r);
    __m256 y = _mm256_fmadd_ps(_mm256_set1_ps(1.9875691500e-4f), r, _mm256_set1_ps(1.3981999507e-3f));
    __m256 y1 = _mm256_fmadd_ps(_mm256_set1_ps(4.1665795894e-2f), r, _mm256_set1_ps(1.6666665459e-1f));
    const __m256 y2 = _mm256_add_ps(r, _mm256_set1_ps(1.0f));
    y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(8.3334519073e-3f));
    y1 = _mm256_fmadd_ps(y1, r, _mm256_set1_ps(5.0000001201e-1f));
    y = _mm256_fmadd_ps(y, r3, y1);
    y = _mm256_fmadd_ps(y, r2, y2);
    __m256i e = _mm256_add_epi32(_mm256_cvtps_epi32(m), _mm256_set1_epi32(127));
    e = _mm256_min_epi32(_mm256_max_epi32(e, _mm256_setzero_si256()), _mm256_set1_epi32(254));
    return _mm256_mul_ps(y, _mm256_castsi256_ps(_mm256_slli_epi32(e, 23)));
}

/// Lanes [0, count) of a vector set, the rest clear: the tail of a row, loaded and stored without reading past it.
__attribute__((target("avx2"))) __m256i firstLanes(int64_t count)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

__attribute__((target("avx2"))) float horizontalMax(__m256 v)
{
    __m128 x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_max_ps(x, _mm_movehl_ps(x, x));
    return _mm_cvtss_f32(_mm_max_ps(x, _mm_shuffle_ps(x, x, 1)));
}

__attribute__((target("avx2"))) float horizontalSum(__m256 v)
{
    __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    x = _mm_add_ps(x, _mm_movehl_ps(x, x));
    return _mm_cvtss_f32(_mm_add_ps(x, _mm_shuffle_ps(x, x, 1)));
}

__attribute__((target("avx2,fma"))) float expShifted(float* row, int64_t n)
{
    const int64_t whole = n / 8 * 8;
    const __m256i tail = firstLanes(n - whole);
    const __m256 lowest = _mm256_set1_ps(-__builtin_inff());
    __m256 top = _mm256_blendv_ps(lowest, _mm256_maskload_ps(row + whole, tail), _mm256_castsi256_ps(tail));
    for (int64_t i = 0; i < whole; i += 8)
        top = _mm256_max_ps(top, _mm256_loadu_ps(row + i));
    const __m256 max = _mm256_set1_ps(horizontalMax(top));
    __m256 sum = _mm256_setzero_ps();
    for (int64_t i = 0; i < whole; i += 8) {
        const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(row + i), max));
        _mm256_storeu_ps(row + i, e);
        sum = _mm256_add_ps(sum, e);
    }
    const __m256 e
        = _mm256_and_ps(exp8(_mm256_sub_ps(_mm256_maskload_ps(row + whole, tail), max)), _mm256_castsi256_ps(tail));
    _mm256_maskstore_ps(row + whole, tail, e);
    sum = _mm256_add_ps(sum, e);
    return horizontalSum(sum);
}

__attribute__((target("avx2"))) void scale(float* row, int64_t n, float factor)
{
    const int64_t whole = n / 8 * 8;
    const __m256i tail = firstLanes(n - whole);
    const __m256 f = _mm256_set1_ps(factor);
    for (int64_t i = 0; i < whole; i += 8)
        _mm256_storeu_ps(row + i, _mm256_mul_ps(_mm256_loadu_ps(row + i), f));
    _mm256_maskstore_ps(row + whole, tail, _mm256_mul_ps(_mm256_maskload_ps(row + whole, tail), f));
}

bool haveAvx2()
{
    static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return available;
}

} // namespace
#endif

bool expDenseAvx2(float* row, int64_t n, float& sum)
{
#if defined(__x86_64__)
    if (!haveAvx2()) return false;
    sum = n > 0 ? expShifted(row, n) : 0.0f;
    return true;
#else
    (void)row;
    (void)n;
    (void)sum;
    return false;
#endif
}

bool softmaxDenseAvx2(float* row, int64_t n)
{
    float sum = 0.0f;
    if (!expDenseAvx2(row, n, sum)) return false;
#if defined(__x86_64__)
    if (n > 0) scale(row, n, 1.0f / sum);
#endif
    return true;
}

} // namespace attn
