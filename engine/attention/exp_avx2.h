// SPDX-License-Identifier: MIT
#pragma once
// The eight-lane exp shared by the softmax and the activations (one definition, so both round alike).
#if defined(__x86_64__)
#include <immintrin.h>

namespace attn {

/// exp of eight floats: Eigen's pexp_float (Cephes: 2^m * p(r), r = x - m ln 2 in two parts, a degree-6
/// polynomial), with fused multiply-adds. The engine is built for baseline x86-64, so Eigen's own exp runs four SSE
/// lanes without FMA; this one rounds within an ulp or two of it. 2^m is built in the exponent bits: m <= -127
/// (x < -87.3, a term below 1e-38 of a softmax row whose largest term is 1) gives 0 instead of a denormal.
inline __attribute__((target("avx2,fma"))) __m256 exp8(__m256 x)
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

} // namespace attn

#endif
