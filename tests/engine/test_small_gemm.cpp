// SPDX-License-Identifier: MIT
// The AVX2 kernel for products of a few rows (decode steps) against double precision, at every tail of the eight
// lanes, with strides, scaling and accumulation, and without writing outside C's rows.
#include "core/small_gemm_avx2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace attn {
namespace {

TEST(SmallGemm, MatchesDoublePrecisionAtEveryTailAndWritesOnlyItsBlock)
{
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        float c = 1.0f;
        EXPECT_FALSE(smallGemmAvx2(1, 1, 1, 1.0f, &c, 1, &c, 1, true, &c, 1, false)); // Eigen's path runs instead
        return;
    }
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    constexpr float kSentinel = 12345.0f;
    int cases = 0;
    for (const bool transposed : { true, false })
        for (const bool accumulate : { false, true })
            for (int64_t m = 1; m <= kSmallGemmMaxRows; m += 3)
                for (int64_t n = 1; n <= 19; n += 2)
                    for (int64_t k = 1; k <= 21; k += 4) {
                        // Every matrix is a block of a wider one (strides 3 past its width), so reads and writes
                        // past a row would land in the padding.
                        const int64_t lda = k + 3, ldb = (transposed ? k : n) + 3, ldc = n + 3;
                        std::vector<float> a(static_cast<size_t>(m * lda)),
                            b(static_cast<size_t>((transposed ? n : k) * ldb));
                        for (float& x : a)
                            x = value(rng);
                        for (float& x : b)
                            x = value(rng);
                        std::vector<float> c(static_cast<size_t>(m * ldc), kSentinel);
                        for (int64_t i = 0; i < m; ++i)
                            for (int64_t j = 0; j < n; ++j)
                                c[static_cast<size_t>(i * ldc + j)] = accumulate ? value(rng) : kSentinel;
                        const std::vector<float> before = c;
                        const float alpha = 0.375f;
                        ASSERT_TRUE(smallGemmAvx2(
                            m, n, k, alpha, a.data(), lda, b.data(), ldb, transposed, c.data(), ldc, accumulate));
                        for (int64_t i = 0; i < m; ++i)
                            for (int64_t j = 0; j < ldc; ++j) {
                                const auto at = static_cast<size_t>(i * ldc + j);
                                if (j >= n) {
                                    ASSERT_EQ(c[at], kSentinel) << "wrote past row " << i;
                                    continue;
                                }
                                double exact = 0.0, magnitude = 0.0;
                                for (int64_t p = 0; p < k; ++p) {
                                    const double ab = static_cast<double>(a[static_cast<size_t>(i * lda + p)])
                                        * b[static_cast<size_t>(transposed ? j * ldb + p : p * ldb + j)];
                                    exact += ab;
                                    magnitude += std::abs(ab);
                                }
                                exact *= alpha;
                                magnitude *= alpha;
                                if (accumulate) {
                                    exact += before[at];
                                    magnitude += std::abs(before[at]);
                                }
                                // Float sums of k + 2 terms in any order: within (k + 2) float epsilons of the sum of
                                // the terms' magnitudes (the classic bound of recursive summation, order-free).
                                const double bound = static_cast<double>(k + 2) * 1.2e-7 * magnitude;
                                ASSERT_NEAR(c[at], exact, bound) << "m " << m << " n " << n << " k " << k;
                            }
                        ++cases;
                    }
    EXPECT_EQ(cases, 2 * 2 * 3 * 10 * 6);
}

TEST(SmallGemm, EveryRowHasTheBitsOfItsOwnOneRowProduct)
{
    // Rows of A share B's loads in blocks; each row's sums must still run as they do alone (a decode step's two query
    // rows of a kv head, or one, round alike), at every tail of the lanes and with an odd last row.
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        float c = 1.0f;
        EXPECT_FALSE(smallGemmAvx2(1, 1, 1, 1.0f, &c, 1, &c, 1, true, &c, 1, false)); // Eigen's path runs instead
        return;
    }
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (const bool transposed : { true, false })
        for (const bool accumulate : { false, true })
            for (int64_t m = 2; m <= kSmallGemmMaxRows; ++m)
                for (const int64_t n : { 1, 7, 8, 9, 23 })
                    for (const int64_t k : { 1, 3, 8, 13, 64, 173 }) {
                        const int64_t lda = k + 1, ldb = (transposed ? k : n) + 2, ldc = n + 1;
                        std::vector<float> a(static_cast<size_t>(m * lda)),
                            b(static_cast<size_t>((transposed ? n : k) * ldb)), c(static_cast<size_t>(m * ldc));
                        for (auto* v : { &a, &b, &c })
                            for (float& x : *v)
                                x = value(rng);
                        std::vector<float> alone = c;
                        ASSERT_TRUE(smallGemmAvx2(
                            m, n, k, 0.5f, a.data(), lda, b.data(), ldb, transposed, c.data(), ldc, accumulate));
                        for (int64_t i = 0; i < m; ++i) {
                            ASSERT_TRUE(smallGemmAvx2(1, n, k, 0.5f, a.data() + i * lda, lda, b.data(), ldb, transposed,
                                alone.data() + i * ldc, ldc, accumulate));
                            for (int64_t j = 0; j < n; ++j) {
                                const auto at = static_cast<size_t>(i * ldc + j);
                                ASSERT_EQ(c[at], alone[at]) << "row " << i << " of " << m << ", n " << n << " k " << k
                                                            << (transposed ? " (B^T)" : " (B)");
                            }
                        }
                    }
}

TEST(SmallGemm, LeavesMoreRowsToThePortableProduct)
{
    std::vector<float> a(static_cast<size_t>(9 * 4), 1.0f), c(9, -1.0f);
    EXPECT_FALSE(smallGemmAvx2(kSmallGemmMaxRows + 1, 1, 4, 1.0f, a.data(), 4, a.data(), 4, true, c.data(), 1, false));
    for (float x : c)
        EXPECT_EQ(x, -1.0f); // untouched
}

} // namespace
} // namespace attn
