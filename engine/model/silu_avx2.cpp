// SPDX-License-Identifier: MIT
#include "model/silu_avx2.h"

#include "attention/exp_avx2.h"
#include "core/avx2_lanes.h"

namespace attn {

#if defined(__x86_64__)
namespace {

__attribute__((target("avx2,fma"))) __m256 silu8(__m256 x)
{
    const __m256 e = exp8(_mm256_sub_ps(_mm256_setzero_ps(), x));
    return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

__attribute__((target("avx2,fma"))) void siluRow(float* x, int64_t n)
{
    const int64_t whole = n / 8 * 8;
    for (int64_t i = 0; i < whole; i += 8)
        _mm256_storeu_ps(x + i, silu8(_mm256_loadu_ps(x + i)));
    if (whole < n) {
        const __m256i tail = firstLanes(n - whole);
        _mm256_maskstore_ps(x + whole, tail, silu8(_mm256_maskload_ps(x + whole, tail)));
    }
}

} // namespace

bool siluAvx2(float* x, int64_t n)
{
    static const bool available = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (!available) return false;
    siluRow(x, n);
    return true;
}

#else

bool siluAvx2(float*, int64_t)
{
    return false;
}

#endif

} // namespace attn
