// SPDX-License-Identifier: MIT
#include "attention/softmax_avx2.h"

#include "attention/exp_avx2.h"
#include "core/avx2_lanes.h"

namespace attn {

#if defined(__x86_64__)
namespace {

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
