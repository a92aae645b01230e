// SPDX-License-Identifier: MIT
// What the Compare tab computes: the head mean of a layer and the Jensen-Shannon divergence per row.
#include "model_test_util.h"

#include "intervention/attention_compare.h"

#include <numbers>

namespace attn::test {
namespace {

TEST(AttentionCompare, HeadMeanAveragesEveryCell)
{
    const Tensor layer({ 2, 1, 3 }, { 1.0f, 0.0f, 0.0f, 0.0f, 0.5f, 0.5f });
    EXPECT_EQ(headMean(layer).storage(), (std::vector<float> { 0.5f, 0.25f, 0.25f }));
    EXPECT_EQ(headMean(layer).shape(), (Shape { 1, 3 }));
    EXPECT_THROW(headMean(Tensor({ 2, 3 })), Error);
}

TEST(AttentionCompare, JensenShannonPerRow)
{
    // Rows: equal; disjoint; P = (1, 0) against Q = (1/2, 1/2), by hand (3/4 ln 4/3 ... in closed form below).
    const std::vector<float> p { 0.3f, 0.7f, 1.0f, 0.0f, 1.0f, 0.0f };
    const std::vector<float> q { 0.3f, 0.7f, 0.0f, 1.0f, 0.5f, 0.5f };
    const std::vector<double> js = jsDivergencePerRow(p.data(), q.data(), 3, 2);
    ASSERT_EQ(js.size(), 3u);
    EXPECT_EQ(js[0], 0.0);
    EXPECT_NEAR(js[1], std::numbers::ln2, 1e-12);
    // M = (3/4, 1/4): KL(P || M) = ln(4/3); KL(Q || M) = 1/2 ln(2/3) + 1/2 ln 2.
    const double expected = 0.5 * (std::log(4.0 / 3.0) + 0.5 * std::log(2.0 / 3.0) + 0.5 * std::log(2.0));
    EXPECT_NEAR(js[2], expected, 1e-7);
    EXPECT_NEAR(jsDivergencePerRow(q.data(), p.data(), 3, 2)[2], js[2], 1e-15) << "symmetric";
}

} // namespace
} // namespace attn::test
