// SPDX-License-Identifier: MIT
// keptAttention (a sparsity pattern's scores, softmax and output computed only where it keeps keys) against the dense
// computation it replaced: maskedSoftmax of the whole [T, T] score product, then the dense product with v. Both sum
// in float64 in different orders, so they agree to float64 rounding: 1e-12 on weights (<= 1) and on outputs relative
// to the values' largest magnitude.
#include "mechanisms/attention_math.h"

#include <gtest/gtest.h>

namespace attn {
namespace {

constexpr double kTol = 1e-12;

TEST(KeptAttention, EqualsTheDenseSoftmaxAndProductWithABiasACausalMaskAndEmptyRows)
{
    constexpr int64_t T = 37;
    HeadInputs in = syntheticHeadInputs(T, 8, 3);
    in.causal = true;
    in.bias = roundedToFloat(Mat::Random(T, T) * 3.0); // a T5-style additive bias
    KeepMask keep = modelKeepMask(in);
    // A sparse random pattern on top, and two rows that see no key at all.
    const Mat draw = Mat::Random(T, T);
    for (Eigen::Index j = 0; j < T; ++j)
        for (Eigen::Index i = 0; i < T; ++i)
            keep(i, j) = keep(i, j) && (draw(i, j) > 0.4 || i == j);
    keep.row(5).setZero();
    keep.row(20).setZero();

    const Mat dense = maskedSoftmax(exactScores(in), keep);
    const KeptAttention kept = keptAttention(in, keep);
    ASSERT_EQ(kept.probs.rows(), T);
    ASSERT_EQ(kept.probs.cols(), T);
    for (Eigen::Index i = 0; i < T; ++i)
        for (Eigen::Index j = 0; j < T; ++j) {
            if (!keep(i, j)) {
                EXPECT_EQ(kept.probs(i, j), 0.0) << i << "," << j; // exactly zero where masked
                continue;
            }
            EXPECT_NEAR(kept.probs(i, j), dense(i, j), kTol) << i << "," << j;
        }
    EXPECT_EQ(kept.probs.row(5).cwiseAbs().sum(), 0.0);
    EXPECT_EQ(kept.out.row(20).cwiseAbs().sum(), 0.0);
    const Mat out = dense * in.v;
    ASSERT_EQ(kept.out.rows(), T);
    ASSERT_EQ(kept.out.cols(), in.v.cols());
    EXPECT_LE((kept.out - out).cwiseAbs().maxCoeff(), kTol * in.v.cwiseAbs().maxCoeff());
    // Every row that sees a key sums to 1.
    for (Eigen::Index i = 0; i < T; ++i)
        if (i != 5 && i != 20) {
            EXPECT_NEAR(kept.probs.row(i).sum(), 1.0, kTol) << i;
        }
}

} // namespace
} // namespace attn
