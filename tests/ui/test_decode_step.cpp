// SPDX-License-Identifier: MIT
// The decode panel's next-token distribution: probabilities, entropy in bits and the top ids, on hand-computed cases.
#include "decode/decode_step.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn::ui {
namespace {

TEST(NextTokenDistribution, UniformLogitsHaveLog2NBitsAndTiesInIndexOrder)
{
    const std::vector<float> logits(8, 3.5f);
    const NextTokenDistribution d = nextTokenDistribution(logits.data(), 8, 3);
    EXPECT_NEAR(d.entropyBits, 3.0f, 1e-6f);
    for (float p : d.probabilities)
        EXPECT_NEAR(p, 0.125f, 1e-7f);
    EXPECT_EQ(d.topIds, (std::vector<int64_t> { 0, 1, 2 }));
}

TEST(NextTokenDistribution, SkewedPairMatchesTheClosedForm)
{
    // p = (1/4, 3/4): H = -(1/4 log2 1/4 + 3/4 log2 3/4) = 0.8112781 bits.
    const std::vector<float> logits { 10.0f, 10.0f + std::log(3.0f) };
    const NextTokenDistribution d = nextTokenDistribution(logits.data(), 2, 5);
    EXPECT_NEAR(d.probabilities[0], 0.25f, 1e-6f);
    EXPECT_NEAR(d.probabilities[1], 0.75f, 1e-6f);
    EXPECT_NEAR(d.entropyBits, 0.8112781f, 1e-6f);
    EXPECT_EQ(d.topIds, (std::vector<int64_t> { 1, 0 }));
}

TEST(NextTokenDistribution, VanishingTokensAddNoEntropy)
{
    const std::vector<float> logits { 0.0f, -200.0f, -INFINITY };
    const NextTokenDistribution d = nextTokenDistribution(logits.data(), 3, 1);
    EXPECT_NEAR(d.entropyBits, 0.0f, 1e-6f);
    EXPECT_EQ(d.topIds, (std::vector<int64_t> { 0 }));
}

} // namespace
} // namespace attn::ui
