// SPDX-License-Identifier: MIT
// Gemma 2 alternates sliding-window layers with global ones: the heatmap masks each layer by its own window (the
// local layer's window-4 band, the global layer's full causal triangle), on HF's goldens for the fixture's ids.
#include "core/npy.h"
#include "export/figure_recipe.h"
#include "export/recipe_snapshot.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"
#include "ui_test_support.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn::ui {
namespace {

TEST(Gemma2Heatmap, EachLayerIsMaskedByItsOwnWindow)
{
    FigureRecipe recipe;
    recipe.model = test::sharedPath("fixtures/hf-tiny/gemma2"); // sliding_window 4: layer 0 local, layer 1 global
    recipe.tokens = readNpyInts(test::sharedPath("fixtures/hf-tiny/gemma2/golden/item0/input_ids.npy"));
    const SnapshotPtr s = computeRecipeSnapshot(recipe);
    HeatmapView view;
    view.resize(800, 600);
    view.show();
    view.setSnapshot(s);
    for (int layer = 0; layer < 2; ++layer) {
        const int64_t window = layer == 0 ? 4 : 0;
        const Tensor golden = test::goldenAttention("gemma2", layer);
        for (int head = 0; head < 4; ++head) {
            view.setHead(layer, head);
            view.flushRedraw();
            const HeatmapMatrix& m = view.matrix();
            ASSERT_EQ(m.rows, golden.dim(1));
            for (int64_t i = 0; i < m.rows; ++i)
                for (int64_t j = 0; j < m.cols; ++j)
                    EXPECT_EQ(s->visible(layer, i, j), j <= i && (window == 0 || i - j < window))
                        << layer << ": " << i << ", " << j;
            EXPECT_LE(test::maxDiffInsideWindow(m, golden, layer, head, window), 1e-5)
                << "layer " << layer << " head " << head << " vs HF";
        }
    }
    // The global layer draws weights the local window would hide: keys 4 and more positions back.
    view.setHead(1, 0);
    view.flushRedraw();
    EXPECT_FALSE(std::isnan(view.matrix().at(11, 0)));
    EXPECT_GT(view.matrix().at(11, 0), 0.0);
}

} // namespace
} // namespace attn::ui
