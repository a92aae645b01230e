// SPDX-License-Identifier: MIT
// Gemma 2 in the Decode tab: the heatmap built from the decode steps masks each layer by its own window (local layer
// 0 with window 4, global layer 1), with HF's attention where it is visible; the KV cache summary says which layers
// slide, and the Ready line names the soft-capping.
#include "core/npy.h"
#include "decode/decode_panel.h"
#include "decode/kv_cache_view.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"
#include "ui_test_support.h"

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

TEST(Gemma2Decode, EachLayerIsMaskedByItsOwnWindowAndTheCapsAreNamed)
{
    DecodePanel panel;
    panel.resize(1200, 760);
    QSignalSpy opened(panel.controller(), &DecodeController::opened);
    panel.openModel(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/gemma2")));
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 30000);
    const QString ready = panel.findChild<QLabel*>("decodeStatus")->text();
    EXPECT_TRUE(ready.contains("1 local layers (window 4) and 1 global")) << ready.toStdString();
    EXPECT_TRUE(ready.contains("scores soft-capped at 50")) << ready.toStdString();
    EXPECT_TRUE(ready.contains("logits soft-capped at 30")) << ready.toStdString();

    // The fixture has no tokenizer: the prompt is its golden ids.
    const std::vector<int64_t> ids
        = readNpyInts(test::sharedPath("fixtures/hf-tiny/gemma2/golden/item0/input_ids.npy"));
    QStringList words;
    for (const int64_t id : ids)
        words << QString::number(id);
    panel.setPromptText(words.join(' '));
    panel.findChild<QPushButton*>("promptButton")->click();
    const auto n = static_cast<int64_t>(ids.size());
    QTRY_COMPARE_WITH_TIMEOUT(static_cast<int64_t>(panel.controller()->steps().size()), n, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(panel.heatmapPositions(), n, 10000);

    for (int64_t layer = 0; layer < 2; ++layer) {
        const int64_t window = layer == 0 ? 4 : 0;
        const Tensor golden = test::goldenAttention("gemma2", static_cast<int>(layer));
        for (int64_t head = 0; head < 4; ++head) {
            panel.setHead(layer, head);
            panel.flushRedraw();
            const HeatmapMatrix& m = panel.heatmap()->matrix();
            ASSERT_EQ(m.rows, n);
            // One position at a time through the KV cache against HF's full forward: the manifest's 1e-5.
            EXPECT_LE(test::maxDiffInsideWindow(m, golden, layer, head, window), 1e-5)
                << "layer " << layer << " head " << head << " vs HF";
        }
    }
    // Layer 1 is global: it shows weights that layer 0's window hides.
    panel.setHead(1, 0);
    panel.flushRedraw();
    EXPECT_GT(panel.heatmap()->matrix().at(n - 1, 0), 0.0);

    auto* kvLayer = panel.kvCache()->findChild<QSpinBox*>();
    ASSERT_NE(kvLayer, nullptr);
    kvLayer->setValue(0);
    const QString local = panel.kvCache()->summary();
    EXPECT_TRUE(local.contains(QString("window 4: %1 positions have left it").arg(n - 4))) << local.toStdString();
    EXPECT_TRUE(local.contains("scores soft-capped at 50")) << local.toStdString();
    kvLayer->setValue(1);
    const QString global = panel.kvCache()->summary();
    EXPECT_TRUE(global.contains("a global layer: every position stays in view")) << global.toStdString();
    EXPECT_FALSE(global.contains("have left it")) << global.toStdString();
}

} // namespace
} // namespace attn::ui
