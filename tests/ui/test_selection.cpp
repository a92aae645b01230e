// SPDX-License-Identifier: MIT
// One selection: the head chosen in the toolbar, in the Decode tab's attention strip or in the all-heads grid is
// the head that the toolbar, the heatmap, the head view and the Decode tab's strip and heatmap all show. The token
// range set in the toolbar or by zooming the heatmap is the one the heatmap, head view and model view show; on the
// Decode tab the toolbar's range is the decoded text's, shown by the tab's heatmap and strip.
#include "decode/attention_strip_view.h"
#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"
#include "widgets/head_grid_view.h"
#include "widgets/head_lines_view.h"
#include "widgets/model_view.h"
#include "widgets/token_range_bar.h"

#include <qcustomplot.h>

#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QToolBar>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

void expectSelection(MainWindow& window, int64_t layer, int64_t head, const char* after)
{
    SCOPED_TRACE(after);
    EXPECT_EQ(window.findChild<QSpinBox*>("layerBox")->value(), layer);
    EXPECT_EQ(window.findChild<QSpinBox*>("headBox")->value(), head);
    EXPECT_EQ(window.heatmapView()->layer(), layer);
    EXPECT_EQ(window.heatmapView()->head(), head);
    EXPECT_EQ(window.linesView()->layer(), layer);
    EXPECT_EQ(window.linesView()->heads(), (std::set<int64_t> { head }));
    const auto* strip = window.decodePanel()->findChild<AttentionStripView*>();
    const auto* decodeHeatmap = window.decodePanel()->findChild<HeatmapView*>();
    ASSERT_NE(strip, nullptr);
    ASSERT_NE(decodeHeatmap, nullptr);
    EXPECT_EQ(strip->layer(), layer);
    EXPECT_EQ(strip->head(), head);
    EXPECT_EQ(decodeHeatmap->layer(), layer);
    EXPECT_EQ(decodeHeatmap->head(), head);
}

TEST(OneSelection, EveryViewFollowsTheHeadChosenInAnyOfThem)
{
    MainWindow window;
    window.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, 30000);
    window.setInputText("Once upon a time");
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() != nullptr, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(window.decodePanel()->controller()->info() != nullptr, 30000);

    window.setCurrentHead(2, 3);
    expectSelection(window, 2, 3, "the toolbar");
    emit window.decodePanel()->findChild<AttentionStripView*>()->headActivated(1, 4);
    expectSelection(window, 1, 4, "a click in the Decode tab's strip");
    emit window.gridView()->headActivated(4, 0);
    expectSelection(window, 4, 0, "a click in the all-heads grid");
    window.findChild<QSpinBox*>("headBox")->setValue(6);
    expectSelection(window, 4, 6, "the toolbar's head box");
}

TEST(OneSelection, TheVisionTabHasTheOnlyHeadSelectorForImageModels)
{
    MainWindow window;
    window.show();
    const auto* toolbar = window.findChild<QToolBar*>("headToolBar");
    ASSERT_NE(toolbar, nullptr);
    window.openModel(QString::fromStdString(std::string(AS_SOURCE_DIR) + "/resources/models/demo-vit-shapes"));
    EXPECT_FALSE(toolbar->isVisible()); // the tab's own layer/head boxes (with the mean of heads) select
    window.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
    EXPECT_TRUE(toolbar->isVisible());
}

/// What the views show of the shared range: the heatmap's axes, the head view's columns, and the first query the
/// model view's cells list (the token a hover at a cell's top left reports).
struct ShownRange {
    QCPRange heatmapKeys, heatmapQueries;
    std::pair<int64_t, int64_t> headViewQueries, headViewKeys;
    int64_t modelViewFirstQuery = -1;
};

ShownRange shownRange(MainWindow& window)
{
    ShownRange r;
    r.heatmapKeys = window.heatmapView()->plot()->xAxis->range();
    r.heatmapQueries = window.heatmapView()->plot()->yAxis->range();
    r.headViewQueries = window.linesView()->shown(false);
    r.headViewKeys = window.linesView()->shown(true);
    ModelView* model = window.modelView();
    const QRect cell = model->cellRect(1, 1);
    QTest::mouseMove(model, QPoint(1, 1)); // (a move to where the mouse already is sends no event)
    QTest::mouseMove(model, cell.topLeft() + QPoint(2, 5));
    r.modelViewFirstQuery = window.tokenLink()->hovered().query;
    window.tokenLink()->setHovered({}); // no hover left over for the next check
    return r;
}

/// `window` at 1280x800 on stories260K, with a four-sentence story run.
void showAStory(MainWindow& window)
{
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    window.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, 30000);
    window.setInputText("Mia and Ben went to the beach. Ben found a red kite. He gave it to Mia. She was happy.");
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() != nullptr, 30000);
}

TEST(OneSelection, TheTokenRangeIsOneAcrossTheToolbarHeatmapHeadViewAndModelView)
{
    MainWindow window;
    showAStory(window);
    ASSERT_NE(window.snapshot(), nullptr);
    const int64_t n = window.snapshot()->numKeys();
    ASSERT_GT(n, 30);
    window.tabs()->setCurrentIndex(window.tabs()->indexOf(window.modelView()->parentWidget()->parentWidget()));
    TokenRangeBar* bar = window.rangeBar();
    EXPECT_FALSE(bar->allButton()->isEnabled()); // everything is shown

    // The toolbar: every view shows positions 5..12.
    bar->fromBox()->setValue(5);
    bar->toBox()->setValue(12);
    ShownRange r = shownRange(window);
    EXPECT_DOUBLE_EQ(r.heatmapKeys.lower, 4.5);
    EXPECT_DOUBLE_EQ(r.heatmapKeys.upper, 12.5);
    EXPECT_DOUBLE_EQ(r.heatmapQueries.lower, 4.5);
    EXPECT_DOUBLE_EQ(r.heatmapQueries.upper, 12.5);
    EXPECT_EQ(r.headViewQueries, (std::pair<int64_t, int64_t> { 5, 13 }));
    EXPECT_EQ(r.headViewKeys, (std::pair<int64_t, int64_t> { 5, 13 }));
    EXPECT_EQ(r.modelViewFirstQuery, 5);
    EXPECT_TRUE(bar->allButton()->isEnabled());
    EXPECT_TRUE(bar->rowsText().isEmpty());

    // Zooming the heatmap (wheel, drag, minimap and "go to token" all move its axes): the toolbar and the other
    // views follow, queries and keys each.
    window.heatmapView()->plot()->xAxis->setRange(0.5, 9.5);
    window.heatmapView()->plot()->yAxis->setRange(19.5, 29.5);
    r = shownRange(window);
    EXPECT_EQ(bar->fromBox()->value(), 1);
    EXPECT_EQ(bar->toBox()->value(), 9);
    EXPECT_EQ(bar->rowsText(), "rows 20–29");
    EXPECT_EQ(r.headViewKeys, (std::pair<int64_t, int64_t> { 1, 10 }));
    EXPECT_EQ(r.headViewQueries, (std::pair<int64_t, int64_t> { 20, 30 }));
    EXPECT_EQ(r.modelViewFirstQuery, 20);

    // All: the whole input again everywhere.
    bar->allButton()->click();
    r = shownRange(window);
    EXPECT_DOUBLE_EQ(r.heatmapKeys.lower, -0.5);
    EXPECT_DOUBLE_EQ(r.heatmapKeys.upper, static_cast<double>(n) - 0.5);
    EXPECT_EQ(r.headViewQueries, (std::pair<int64_t, int64_t> { 0, n }));
    EXPECT_EQ(r.modelViewFirstQuery, 0);
    EXPECT_EQ(bar->toBox()->value(), n - 1);

    // An input of another length starts from all of its tokens.
    bar->fromBox()->setValue(3);
    window.setInputText("Once upon a time");
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot()->numKeys() < n, 30000);
    EXPECT_TRUE(window.tokenLink()->range().all());
    EXPECT_EQ(bar->fromBox()->value(), 0);
    EXPECT_EQ(bar->toBox()->value(), window.snapshot()->numKeys() - 1);
}

TEST(OneSelection, OnTheDecodeTabTheToolbarsRangeIsTheDecodedTextsAndDrivesItsHeatmapAndStrip)
{
    MainWindow window;
    showAStory(window);
    ASSERT_NE(window.snapshot(), nullptr);
    const int64_t inputTokens = window.snapshot()->numKeys();
    DecodePanel* decode = window.decodePanel();
    QTRY_VERIFY_WITH_TIMEOUT(decode->controller()->info() != nullptr, 30000);
    window.tabs()->setCurrentWidget(decode);
    decode->setPromptText("Once upon a time");
    decode->findChild<QPushButton*>("promptButton")->click();
    QTRY_VERIFY_WITH_TIMEOUT(decode->controller()->steps().size() > 3, 10000);
    for (int i = 0; i < 6; ++i) {
        const size_t before = decode->controller()->steps().size();
        decode->stepButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(decode->controller()->steps().size(), before + 1, 10000);
    }
    const auto positions = static_cast<int64_t>(decode->controller()->steps().size());
    QTRY_COMPARE_WITH_TIMEOUT(decode->heatmapPositions(), positions, 10000);
    decode->flushRedraw();
    QTRY_COMPARE_WITH_TIMEOUT(decode->strip()->image().width(), positions, 10000); // the newest step's rows
    ASSERT_NE(positions, inputTokens); // else the counts below could not tell the two sequences apart

    // The bar addresses the decoded text: its label says so and it counts the timeline's positions.
    TokenRangeBar* bar = window.rangeBar();
    EXPECT_TRUE(bar->isEnabled());
    EXPECT_EQ(bar->sequenceText(), "decoded:");
    EXPECT_EQ(bar->toBox()->maximum(), positions - 1);
    EXPECT_EQ(bar->toBox()->value(), positions - 1);

    // Toolbar -> Decode tab: its heatmap and strip show positions 2..5; the main input's range is untouched.
    bar->fromBox()->setValue(2);
    bar->toBox()->setValue(5);
    const QCustomPlot* plot = decode->heatmap()->plot();
    EXPECT_DOUBLE_EQ(plot->xAxis->range().lower, 1.5);
    EXPECT_DOUBLE_EQ(plot->xAxis->range().upper, 5.5);
    EXPECT_DOUBLE_EQ(plot->yAxis->range().lower, 1.5);
    EXPECT_DOUBLE_EQ(plot->yAxis->range().upper, 5.5);
    EXPECT_EQ(decode->strip()->shownKeys(), (std::pair<int64_t, int64_t> { 2, 6 }));
    EXPECT_TRUE(window.tokenLink()->range().all());
    EXPECT_DOUBLE_EQ(window.heatmapView()->plot()->xAxis->range().upper, static_cast<double>(inputTokens) - 0.5);

    // Decode tab -> toolbar: zooming its heatmap moves the bar, and the strip follows.
    decode->heatmap()->plot()->xAxis->setRange(0.5, 3.5);
    decode->heatmap()->plot()->yAxis->setRange(0.5, 3.5);
    EXPECT_EQ(bar->fromBox()->value(), 1);
    EXPECT_EQ(bar->toBox()->value(), 3);
    EXPECT_EQ(decode->strip()->shownKeys(), (std::pair<int64_t, int64_t> { 1, 4 }));

    // Another tab: the bar is the main input's again, at its whole range; back on Decode, the tab's own range.
    window.tabs()->setCurrentWidget(window.heatmapView());
    EXPECT_EQ(bar->sequenceText(), "input:");
    EXPECT_EQ(bar->toBox()->maximum(), inputTokens - 1);
    EXPECT_EQ(bar->fromBox()->value(), 0);
    EXPECT_EQ(bar->toBox()->value(), inputTokens - 1);
    window.tabs()->setCurrentWidget(decode);
    EXPECT_EQ(bar->sequenceText(), "decoded:");
    EXPECT_EQ(bar->fromBox()->value(), 1);
    EXPECT_EQ(bar->toBox()->value(), 3);
    bar->allButton()->click();
    EXPECT_EQ(decode->strip()->shownKeys(), (std::pair<int64_t, int64_t> { 0, positions }));
    EXPECT_DOUBLE_EQ(plot->xAxis->range().upper, static_cast<double>(positions) - 0.5);
}

} // namespace
} // namespace attn::ui
