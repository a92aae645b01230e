// SPDX-License-Identifier: MIT
#include "core/small_gemm_avx2.h"

#include "core/avx2_lanes.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace attn {

#if defined(__x86_64__)
namespace {

/// The eight lane sums of s[0..7] as one vector (lane j = the sum of s[j]'s lanes).
__attribute__((target("avx2"))) __m256 sumsOfEight(const __m256* s)
{
    const __m256 t0 = _mm256_hadd_ps(s[0], s[1]), t1 = _mm256_hadd_ps(s[2], s[3]);
    const __m256 t2 = _mm256_hadd_ps(s[4], s[5]), t3 = _mm256_hadd_ps(s[6], s[7]);
    const __m256 u0 = _mm256_hadd_ps(t0, t1), u1 = _mm256_hadd_ps(t2, t3);
    return _mm256_add_ps(_mm256_permute2f128_ps(u0, u1, 0x20), _mm256_permute2f128_ps(u0, u1, 0x31));
}

/// c[0, count) = alpha * v (+ c[0, count) when accumulating).
__attribute__((target("avx2,fma"))) void storeScaled(float* c, __m256 v, float alpha, int64_t count, bool accumulate)
{
    const __m256i lanes = firstLanes(count);
    v = _mm256_mul_ps(v, _mm256_set1_ps(alpha));
    if (accumulate) v = _mm256_add_ps(v, _mm256_maskload_ps(c, lanes));
    _mm256_maskstore_ps(c, lanes, v);
}

/// The dot products of row `ai` of A with the eight rows of B at `rows`: a chain of fused multiply-adds over k each,
/// summed across lanes together.
__attribute__((target("avx2,fma"), always_inline)) inline __m256 eightDots(
    const float* ai, const float* const* rows, int64_t whole, int64_t k, __m256i tail)
{
    __m256 s[8];
    for (int64_t j = 0; j < 8; ++j)
        s[j] = _mm256_setzero_ps();
    for (int64_t p = 0; p < whole; p += 8) {
        const __m256 x = _mm256_loadu_ps(ai + p);
        for (int64_t j = 0; j < 8; ++j)
            s[j] = _mm256_fmadd_ps(x, _mm256_loadu_ps(rows[j] + p), s[j]);
    }
    if (whole < k) {
        const __m256 x = _mm256_maskload_ps(ai + whole, tail);
        for (int64_t j = 0; j < 8; ++j)
            s[j] = _mm256_fmadd_ps(x, _mm256_maskload_ps(rows[j] + whole, tail), s[j]);
    }
    return sumsOfEight(s);
}

/// C = alpha * A B^T: eight rows of B at a time. A last block of fewer rows repeats B's last row (in bounds, and never
/// stored), so the eight chains stay in registers. Every row of A runs against a block before the next is set up (a
/// decode step's scores are two query rows against every key); one row (the projections) takes a loop of its own, as
/// the compiler would otherwise prepare the masked tail of every block for rows that have none.
__attribute__((target("avx2,fma"))) void productTransposed(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
    int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate)
{
    const int64_t whole = k / 8 * 8;
    const __m256i tail = firstLanes(k - whole);
    for (int64_t j0 = 0; j0 < n; j0 += 8) {
        const float* rows[8];
        for (int64_t j = 0; j < 8; ++j)
            rows[j] = b + (j0 + j < n ? j0 + j : n - 1) * ldb;
        const int64_t count = n - j0 < 8 ? n - j0 : 8;
        if (m == 1) {
            storeScaled(c + j0, eightDots(a, rows, whole, k, tail), alpha, count, accumulate);
            continue;
        }
        for (int64_t i = 0; i < m; ++i)
            storeScaled(c + i * ldc + j0, eightDots(a + i * lda, rows, whole, k, tail), alpha, count, accumulate);
    }
}

/// Rows [i, i + R) of C = alpha * A B: eight columns at a time, B's rows weighted by A's entries over four
/// independent chains per row (one chain would wait on every fused multiply-add's latency through hundreds of keys).
/// The R rows share each load of B (a decode step's weighted values are two query rows over every key).
template <int R>
__attribute__((target("avx2,fma"))) void plainRows(int64_t i, int64_t n, int64_t k, float alpha, const float* a,
    int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate)
{
    for (int64_t j0 = 0; j0 < n; j0 += 8) {
        const int64_t count = n - j0 < 8 ? n - j0 : 8;
        const __m256i lanes = firstLanes(count);
        __m256 s[R][4];
        for (int r = 0; r < R; ++r)
            for (int u = 0; u < 4; ++u)
                s[r][u] = _mm256_setzero_ps();
        int64_t p = 0;
        for (; p + 4 <= k; p += 4)
            for (int64_t u = 0; u < 4; ++u) {
                const __m256 row = _mm256_maskload_ps(b + (p + u) * ldb + j0, lanes);
                for (int r = 0; r < R; ++r)
                    s[r][u] = _mm256_fmadd_ps(_mm256_set1_ps(a[(i + r) * lda + p + u]), row, s[r][u]);
            }
        for (; p < k; ++p) {
            const __m256 row = _mm256_maskload_ps(b + p * ldb + j0, lanes);
            for (int r = 0; r < R; ++r)
                s[r][0] = _mm256_fmadd_ps(_mm256_set1_ps(a[(i + r) * lda + p]), row, s[r][0]);
        }
        for (int r = 0; r < R; ++r)
            storeScaled(c + (i + r) * ldc + j0,
                _mm256_add_ps(_mm256_add_ps(s[r][0], s[r][1]), _mm256_add_ps(s[r][2], s[r][3])), alpha, count,
                accumulate);
    }
}

/// C = alpha * A B, two rows of A at a time.
__attribute__((target("avx2,fma"))) void productPlain(int64_t m, int64_t n, int64_t k, float alpha, const float* a,
    int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate)
{
    int64_t i = 0;
    for (; i + 2 <= m; i += 2)
        plainRows<2>(i, n, k, alpha, a, lda, b, ldb, c, ldc, accumulate);
    if (i < m) plainRows<1>(i, n, k, alpha, a, lda, b, ldb, c, ldc, accumulate);
}

} // namespace

bool smallGemmAvx2(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
    int64_t ldb, bool bTransposed, float* c, int64_t ldc, bool accumulate)
{
    static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (!supported || m > kSmallGemmMaxRows) return false;
    if (bTransposed)
        productTransposed(m, n, k, alpha, a, lda, b, ldb, c, ldc, accumulate);
    else
        productPlain(m, n, k, alpha, a, lda, b, ldb, c, ldc, accumulate);
    return true;
}

#else

bool smallGemmAvx2(
    int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t, bool, float*, int64_t, bool)
{
    return false;
}

#endif

} // namespace attn
