// SPDX-License-Identifier: MIT
// Issue 17 (no GUI-thread event over 50 ms at 4,096 tokens): a Mechanisms map past the heatmap's 256-token window
// draws its overview, which the GUI thread built by scanning the whole [T, T] map on the first drawing of each result
// (three maps on the Exact vs variant page, five on Positions). A result now comes with every map's overviews made
// on the engine thread, where its maps are built, and the result the tab replaces is freed there too.
#include "attention_source/attention_source.h"
#include "mechanisms/matrix_snapshot.h"
#include "mechanisms/mechanisms_cache.h"
#include "mechanisms/mechanisms_request.h"
#include "service/model_registry.h"

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

TEST(MechanismsMaps, AResultComesWithEveryMapsOverviewsMade)
{
    MechanismsRequest request;
    request.synthetic = true;
    request.tokens = 300; // past the heatmap's 256-token window: it draws the overview
    request.dk = 8;
    request.variant = "window:4";
    request.parts = kComparePart | kPositionsPart;
    ModelRegistry models;
    const MechanismsPtr r = computeMechanisms(request, models, [] { return true; });
    const MechanismsMaps& m = r->maps;
    for (const SnapshotPtr& map : { m.exact, m.variant, m.difference, m.sinusoid, m.rope, m.t5, m.alibi }) {
        ASSERT_TRUE(map);
        EXPECT_TRUE(map->overviewReady(0, 0)) << "the map's overview";
        EXPECT_TRUE(map->overviewReady(0, 0, AttentionSource::kThumbnailSide)) << "its minimap's";
    }
}

// matrixSnapshot copies tile by tile: every entry lands where the row-major snapshot reads it, at shapes that are no
// multiple of the tile.
TEST(MechanismsMaps, ASnapshotHoldsEveryEntryOfItsMatrix)
{
    for (const auto& [rows, cols] : { std::pair { 1, 1 }, { 3, 130 }, { 130, 67 }, { 64, 64 } }) {
        Mat values(rows, cols);
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
                values(i, j) = 0.25 * i - 0.5 * j;
        const SnapshotPtr s = matrixSnapshot(values, indexChips("q", rows), indexChips("k", cols));
        ASSERT_EQ(s->numQueries(), rows);
        ASSERT_EQ(s->numKeys(), cols);
        const float* head = s->head(0, 0);
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j)
                ASSERT_EQ(head[i * cols + j], static_cast<float>(values(i, j)))
                    << rows << "x" << cols << ": " << i << "," << j;
    }
}

// A result the tab replaces is not freed by the tab (the GUI thread) but by the engine thread at the next request:
// the cache holds it until then, whatever the tab let go of.
TEST(MechanismsMaps, TheResultATabReplacesIsFreedByTheNextRequest)
{
    MechanismsRequest request;
    request.synthetic = true;
    request.tokens = 40;
    request.dk = 8;
    ModelRegistry models;
    MechanismsCache cache;
    MechanismsPtr shown = computeMechanisms(
        request, models, [] { return true; }, &cache);
    const std::weak_ptr<const MechanismsResult> first = shown;
    request.variant = "strided:3";
    shown = computeMechanisms(
        request, models, [] { return true; }, &cache); // the tab lets go of the first
    EXPECT_FALSE(first.expired()) << "the tab held the last reference to the result it replaced";
    request.variant = "window:2";
    computeMechanisms(
        request, models, [] { return true; }, &cache);
    EXPECT_TRUE(first.expired()) << "the next request frees it";
}

} // namespace
} // namespace attn::ui
