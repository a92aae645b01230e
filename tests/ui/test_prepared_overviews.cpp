// SPDX-License-Identifier: MIT
// Issue 22 (no GUI-thread stall over 50 ms): a heatmap of a held matrix past its 256-token window draws the head's
// overview, which the GUI thread built by scanning the whole head at every rebuild of the view (the Compare tab's three
// maps: most of its 40-66 ms). A held snapshot now keeps the overviews it built, and the results the Compare and
// Intervene tabs build on the engine thread come with their maps' overviews made.
#include "intervention/comparison.h"

#include <gtest/gtest.h>

#include <random>

namespace attn::ui {
namespace {

constexpr int64_t kTokens = 300; // past the heatmap's 256-token window: it draws the overview

/// One layer of `heads` causal heads of random rows (each row sums to 1 over its visible keys).
SnapshotPtr randomSnapshot(int64_t heads)
{
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> weight(0.01f, 1.0f);
    Tensor layer({ heads, kTokens, kTokens });
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t q = 0; q < kTokens; ++q) {
            float* row = layer.data() + (h * kTokens + q) * kTokens;
            float sum = 0.0f;
            for (int64_t k = 0; k <= q; ++k)
                sum += row[k] = weight(rng);
            for (int64_t k = 0; k <= q; ++k)
                row[k] /= sum;
        }
    std::vector<TokenChip> chips;
    for (int64_t i = 0; i < kTokens; ++i)
        chips.push_back({ "t" + std::to_string(i), i, false });
    MaskSpec causal;
    causal.causal = true;
    std::vector<Tensor> layers;
    layers.push_back(std::move(layer));
    return std::make_shared<const AttentionSnapshot>(
        std::move(chips), std::move(layers), heads, causal, std::vector<TokenChip> {}, AttentionSnapshot::Stats::Skip);
}

TEST(PreparedOverviews, AHeldSnapshotAnswersARepeatedOverviewReadWithTheOverviewItBuilt)
{
    const SnapshotPtr s = randomSnapshot(2);
    EXPECT_FALSE(s->overviewReady(0, 1));
    const auto first = s->overview(0, 1);
    EXPECT_TRUE(s->overviewReady(0, 1));
    EXPECT_EQ(s->overview(0, 1).get(), first.get()) << "read again, not rebuilt";
    EXPECT_EQ(s->cachedOverview(0, 1).get(), first.get());
    EXPECT_FALSE(s->overviewReady(0, 0)) << "one head's overview is not another's";
    const auto other = s->overview(0, 0);
    EXPECT_NE(other.get(), first.get());
    // The kept pyramid is the head's: its finest level holds each cell's block max of the matrix.
    const OverviewLevel& finest = first->levels.front();
    ASSERT_EQ(finest.block, 1);
    const float* head = s->head(0, 1);
    for (int64_t q = 0; q < kTokens; q += 37)
        for (int64_t k = 0; k < kTokens; k += 41)
            EXPECT_EQ(finest.maxAt(q, k), head[q * kTokens + k]) << q << "," << k;
}

TEST(PreparedOverviews, AComparisonComesWithItsThreeMapsOverviewsMade)
{
    const SnapshotPtr run = randomSnapshot(2);
    CompareSelection selection;
    selection.layer[0] = selection.layer[1] = 0;
    selection.head[0] = 0;
    selection.head[1] = 1;
    const ComparisonPtr c = computeComparison(*run, *run, selection); // what the engine thread runs
    ASSERT_TRUE(c->comparable());
    for (const SnapshotPtr& map : { c->a, c->b, c->third }) {
        EXPECT_TRUE(map->overviewReady(0, 0)) << "the map's overview";
        EXPECT_TRUE(map->overviewReady(0, 0, AttentionSource::kThumbnailSide)) << "its minimap's";
    }
}

} // namespace
} // namespace attn::ui
