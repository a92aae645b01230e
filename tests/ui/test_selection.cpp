// SPDX-License-Identifier: MIT
// One selection: the head chosen in the toolbar, in the Decode tab's attention strip or in the all-heads grid is
// the head that the toolbar, the heatmap, the head view and the Decode tab's strip and heatmap all show.
#include "decode/attention_strip_view.h"
#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"
#include "widgets/head_grid_view.h"
#include "widgets/head_lines_view.h"

#include <QSpinBox>
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

} // namespace
} // namespace attn::ui
