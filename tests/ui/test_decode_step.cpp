// SPDX-License-Identifier: MIT
// The decode panel's next-token distribution: probabilities, entropy in bits and the top ids, on hand-computed cases.
#include "core/error.h"
#include "session/decode_step.h"
#include "model/attention_snapshot.h"

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

TEST(AttentionSnapshotStats, SkippedOnRequestComputedByDefault)
{
    // Two keys, causal: row 0 sees only key 0; row 1 splits evenly (1 bit of entropy).
    const auto make = [](AttentionSnapshot::Stats stats) {
        Tensor layer({ 1, 2, 2 });
        const float values[] = { 1.0f, 0.0f, 0.5f, 0.5f };
        std::copy(values, values + 4, layer.data());
        std::vector<Tensor> layers;
        layers.push_back(std::move(layer));
        MaskSpec mask;
        mask.causal = true;
        return AttentionSnapshot({ { "a", 0, false }, { "b", 1, false } }, std::move(layers), 1, mask, {}, stats);
    };
    const AttentionSnapshot skipped = make(AttentionSnapshot::Stats::Skip);
    EXPECT_FALSE(skipped.hasStats());
    EXPECT_THROW(skipped.stats(0, 0), Error);
    EXPECT_EQ(skipped.head(0, 0)[2], 0.5f);
    const AttentionSnapshot computed = make(AttentionSnapshot::Stats::Compute);
    ASSERT_TRUE(computed.hasStats());
    EXPECT_NEAR(computed.stats(0, 0).entropy, std::log(2.0) / 2, 1e-6); // rows: 0 nats and ln 2
}

} // namespace
} // namespace attn::ui
