// SPDX-License-Identifier: MIT
#include "analysis/head_stats.h"
#include "core/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn {
namespace {

// Causal 3x3 head, values chosen so every statistic is easy to compute by hand.
const std::vector<float> kCausal3 = { 1.0f, 0.0f, 0.0f, 0.5f, 0.5f, 0.0f, 0.25f, 0.25f, 0.5f };

MaskSpec causal(int64_t offset = 0) {
    MaskSpec m;
    m.causal = true;
    m.queryOffset = offset;
    return m;
}

TEST(HeadStats, CausalHandComputed) {
    const HeadStats s = computeHeadStats(kCausal3.data(), 3, 3, causal());
    const double ln2 = std::log(2.0), ln4 = std::log(4.0), ln3 = std::log(3.0);
    const double h2 = 0.5 * ln4 + 0.5 * ln2; // -(2 * 0.25 ln 0.25 + 0.5 ln 0.5)
    EXPECT_EQ(s.rows, 3);
    EXPECT_NEAR(s.entropy, (0.0 + ln2 + h2) / 3.0, 1e-6);
    // Row 0 sees one key: no normalized entropy for it.
    EXPECT_NEAR(s.normalizedEntropy, (1.0 + h2 / ln3) / 2.0, 1e-6);
    EXPECT_NEAR(s.meanDistance, (0.0 + 0.5 + (0.25 * 2 + 0.25 * 1)) / 3.0, 1e-6);
    EXPECT_NEAR(s.sinkMass, (1.0 + 0.5 + 0.25) / 3.0, 1e-6);
    EXPECT_NEAR(s.previousToken, (0.5 + 0.25) / 2.0, 1e-6); // rows 1 and 2 have a previous token
    EXPECT_NEAR(s.diagonal, (1.0 + 0.5 + 0.5) / 3.0, 1e-6);
    EXPECT_EQ(classifyHead(s), unsigned(RoleSink | RoleBroad));
    EXPECT_EQ(headRoleNames(classifyHead(s)), "sink, broad");
}

TEST(HeadStats, QueryOffsetShiftsPositions) {
    // Two decode rows at positions 2 and 3, each looking only at its previous token.
    const std::vector<float> p = { 0, 1, 0, 0, 0, 0, 1, 0 };
    const HeadStats s = computeHeadStats(p.data(), 2, 4, causal(2));
    EXPECT_NEAR(s.previousToken, 1.0, 1e-9);
    EXPECT_NEAR(s.diagonal, 0.0, 1e-9);
    EXPECT_NEAR(s.sinkMass, 0.0, 1e-9);
    EXPECT_NEAR(s.meanDistance, 1.0, 1e-9);
    EXPECT_NEAR(s.entropy, 0.0, 1e-9);
    EXPECT_NEAR(s.normalizedEntropy, 0.0, 1e-9);
    EXPECT_EQ(classifyHead(s), unsigned(RolePreviousToken));
    EXPECT_EQ(headRoleNames(RoleNone), "");
}

TEST(HeadStats, PaddedKeysAndEmptyRows) {
    MaskSpec m;
    m.keyKeep = { 1, 1, 0 };
    // Row 0 is uniform over its two visible keys; row 1 is all zero (a fully masked row) and is skipped.
    const std::vector<float> p = { 0.5f, 0.5f, 0.0f, 0.0f, 0.0f, 0.0f };
    const HeadStats s = computeHeadStats(p.data(), 2, 3, m);
    EXPECT_EQ(s.rows, 1);
    EXPECT_NEAR(s.normalizedEntropy, 1.0, 1e-6); // log 2 / log(2 visible keys), not log 3
    EXPECT_NEAR(s.entropy, std::log(2.0), 1e-6);
    EXPECT_NEAR(s.meanDistance, 0.5, 1e-6);
    EXPECT_NEAR(s.diagonal, 0.5, 1e-6);
    EXPECT_NEAR(s.previousToken, 0.0, 1e-9); // row 0 has no previous token, row 1 is skipped
}

TEST(HeadStats, LayerKeepsHeadOrderAndRejectsBadShapes) {
    std::vector<float> data(kCausal3);
    const std::vector<float> prev = { 1, 0, 0, 1, 0, 0, 0, 1, 0 };
    data.insert(data.end(), prev.begin(), prev.end());
    const auto stats = computeLayerHeadStats(Tensor({ 2, 3, 3 }, data), causal());
    ASSERT_EQ(stats.size(), 2u);
    EXPECT_NEAR(stats[0].sinkMass, 1.75 / 3.0, 1e-6);
    EXPECT_NEAR(stats[1].previousToken, 1.0, 1e-6);
    EXPECT_THROW(computeLayerHeadStats(Tensor({ 3, 3 }, kCausal3), causal()), Error);
    EXPECT_THROW(computeHeadStats(kCausal3.data(), 0, 3, causal()), Error);
}

} // namespace
} // namespace attn
