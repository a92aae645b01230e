// SPDX-License-Identifier: MIT
// The Head atlas tab on the demo decoder: the map of the main input and the induction probe gives the known
// induction head (layer 2 head 0) the induction role and the top induction score, hover is linked between the two
// drawings, a click selects the head in the main views, another cluster count re-cuts the map, and the map's own
// scores.json opens again with the same scores and roles. A 1,152-head map repaints within a frame budget.
#include "analysis/head_atlas.h"
#include "atlas/atlas_panel.h"
#include "atlas/cluster_matrix_view.h"
#include "atlas/head_map.h"
#include "atlas/role_grid_view.h"
#include "core/error.h"
#include "main_window.h"
#include "window_runs.h"
#include "window_screenshots.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <random>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 60000;
const char* kStory = "Ben went to the park. Ben said the magic words: gold wind frog lamp. Then he said again: gold "
                     "wind frog lamp";

TEST(HeadMap, TheAtlasScoringOfTheTabPollsCancel)
{
    // The tab's map scores every head of the kept pass; a cancel must reach that scoring, not only the passes (the
    // scores of a 4k-token input on a 12x12 model are 2.3G logarithms). With the kept pass made, a cancel that is
    // already requested can only be seen by the scoring.
    EngineContext context;
    const std::string path = test::demoDecoderPath().toStdString();
    std::vector<int64_t> tokens;
    for (int64_t i = 0; i < 48; ++i)
        tokens.push_back(3 + (i * 7) % 40);
    ASSERT_NE(mapHeads(context, "atlas", path, tokens, 0, 2, {}), nullptr); // makes and keeps the pass
    int polls = 0;
    RerunHooks cancelled;
    cancelled.cancelRequested = [&polls] {
        ++polls;
        return true;
    };
    EXPECT_THROW(mapHeads(context, "atlas", path, tokens, 0, 2, cancelled), Cancelled);
    EXPECT_GE(polls, 1);
}

TEST(AtlasPanel, MapsTheDemoDecoderAndLinksItsHeads)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, test::demoDecoderPath(), kStory));

    AtlasPanel* atlas = window.atlasPanel();
    QSignalSpy shown(atlas, &AtlasPanel::mapShown);
    window.tabs()->setCurrentWidget(atlas); // shown: mapped at once
    QTRY_VERIFY_WITH_TIMEOUT(atlas->map() != nullptr, kTimeoutMs);
    HeadMapPtr map = atlas->map();
    ASSERT_EQ(map->atlas.layers(), 4);
    ASSERT_EQ(map->atlas.heads(), 4);
    EXPECT_EQ(map->atlas.inputs(), 1) << "the main input alone: no probe by default";
    EXPECT_EQ(map->clusters.count, 6);
    const int64_t known = 2 * 4 + 0; // layer 2 head 0
    EXPECT_EQ(map->roles[size_t(known)], AtlasRole::Induction);
    const Tensor induction = map->atlas.score(AtlasScore::Induction);
    EXPECT_EQ(std::max_element(induction.data(), induction.data() + 16) - induction.data(), known);
    EXPECT_TRUE(atlas->status().contains("6 clusters")) << atlas->status().toStdString();
    // The other heads of layer 2 that copy (heads 1 and 3) are induction heads too, and the patterns put all three in
    // one cluster.
    for (const int64_t head : { 2 * 4 + 1, 2 * 4 + 3 }) {
        EXPECT_EQ(map->roles[size_t(head)], AtlasRole::Induction) << head;
        EXPECT_EQ(map->clusters.cluster[size_t(head)], map->clusters.cluster[size_t(known)]) << head;
    }

    // Hover in the grid frames the head in both drawings and names it; a click selects it in the main views.
    RoleGridView* grid = atlas->grid();
    const QPoint cell = grid->cellRect(known).center().toPoint();
    QTest::mouseMove(grid, cell);
    QTRY_COMPARE_WITH_TIMEOUT(atlas->matrix()->highlight(), known, 2000);
    EXPECT_EQ(grid->highlight(), known);
    EXPECT_TRUE(atlas->detail().startsWith("L2.H0: induction")) << atlas->detail().toStdString();
    test::saveScreenshots(window, "atlas");
    QTest::mouseClick(grid, Qt::LeftButton, {}, cell);
    EXPECT_EQ(window.tabs()->currentIndex(), 0) << "the heatmap";
    EXPECT_EQ(window.findChild<QSpinBox*>("layerBox")->value(), 2);
    EXPECT_EQ(window.findChild<QSpinBox*>("headBox")->value(), 0);

    // Another count re-cuts the same signatures: the same correlations, the new number of clusters.
    window.tabs()->setCurrentWidget(atlas);
    const int before = static_cast<int>(shown.count());
    atlas->setClusters(3);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > before, kTimeoutMs);
    EXPECT_EQ(atlas->map()->clusters.count, 3);
    for (int64_t i = 0; i < 16 * 16; ++i)
        ASSERT_FLOAT_EQ(atlas->map()->clusters.similarity.data()[i], map->clusters.similarity.data()[i]);

    // With the probe: two inputs, a signature of both patterns (the probe's 41 tokens pooled to 24 x 24).
    const int64_t n = static_cast<int64_t>(window.runResult()->source.size());
    atlas->setProbeLength(20);
    atlas->mapInput();
    QTRY_VERIFY_WITH_TIMEOUT(atlas->map()->atlas.inputs() == 2, kTimeoutMs);
    EXPECT_EQ(atlas->map()->signatures.dim(1),
        std::min<int64_t>(n, kPatternGrid) * std::min<int64_t>(n, kPatternGrid) + kPatternGrid * kPatternGrid);
    EXPECT_TRUE(atlas->status().contains("induction probe")) << atlas->status().toStdString();

    // Its scores.json opens as a map of the same scores and roles, clustered by the scores.
    QTemporaryDir dir;
    std::ofstream((dir.path() + "/scores.json").toStdString()) << map->atlas.toJson();
    atlas->openAtlas(dir.path());
    QTRY_VERIFY_WITH_TIMEOUT(
        atlas->map() != map && atlas->map()->basis.find("no patterns") != std::string::npos, kTimeoutMs);
    EXPECT_EQ(atlas->map()->roles, map->roles);
    EXPECT_EQ(atlas->map()->signatures.dim(1), kAtlasScores);
    for (int s = 0; s < kAtlasScores; ++s)
        for (int64_t i = 0; i < 16; ++i)
            EXPECT_NEAR(
                atlas->map()->atlas.score(AtlasScore(s)).data()[i], map->atlas.score(AtlasScore(s)).data()[i], 1e-6);
    atlas->openAtlas(dir.path() + "/missing");
    QTRY_VERIFY_WITH_TIMEOUT(atlas->status().startsWith("Error"), kTimeoutMs);
    EXPECT_TRUE(atlas->status().contains("missing")) << atlas->status().toStdString();
}

// "1,000+ heads stay fluid": a 48-layer x 24-head map (random signatures) repaints from its cached pictures.
TEST(AtlasPanel, ThousandHeadMapRepaintsWithinAFrameBudget)
{
    const int64_t layers = 48, heads = 24;
    HeadAtlas atlas(layers, heads);
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<float> uniform;
    const int64_t n = 8;
    std::vector<Tensor> attention;
    for (int64_t l = 0; l < layers; ++l) {
        Tensor a({ heads, n, n });
        for (int64_t i = 0; i < a.numel(); ++i)
            a.data()[i] = uniform(rng) / static_cast<float>(n);
        attention.push_back(a);
    }
    std::vector<int64_t> tokens { 1, 2, 3, 4, 1, 2, 3, 4 };
    atlas.add(tokens, attention);
    HeadPatterns patterns(layers, heads);
    patterns.add(attention);
    QElapsedTimer clustering;
    clustering.start();
    const HeadMapPtr map = buildHeadMap(atlas, patterns.features(), 8, "test");
    std::cout << "clustering 1,152 heads: " << clustering.elapsed() << " ms\n";
    ASSERT_EQ(map->clusters.order.size(), 1152u);
    RoleGridView grid;
    ClusterMatrixView matrix;
    for (QWidget* view : std::initializer_list<QWidget*> { &grid, &matrix }) {
        view->resize(560, 560);
        view->show();
    }
    grid.setMap(map);
    matrix.setMap(map);
    ASSERT_EQ(matrix.image().width(), 1152);
    // A hover moves the frame and repaints both: 20 such frames each. 100 ms is a generous frame on this shared
    // 2-core machine; what it rules out is work per head pair on every paint.
    QElapsedTimer frames;
    frames.start();
    for (int i = 0; i < 20; ++i) {
        grid.setHighlight(i * 50);
        matrix.setHighlight(i * 50);
        grid.grab(); // paints now, into a pixmap (repaint() may skip an unexposed offscreen window)
        matrix.grab();
    }
    const double perFrame = static_cast<double>(frames.elapsed()) / 20.0;
    std::cout << "1,152-head map: " << perFrame << " ms per hover frame (both drawings)\n";
    EXPECT_LT(perFrame, 100.0);
}

} // namespace
} // namespace attn::ui
