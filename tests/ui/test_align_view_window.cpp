// SPDX-License-Identifier: MIT
// The main window shows the Alignment tab for seq2seq models only: the GRU toy opens it (and aligns there), a
// decoder-only model leaves it disabled.
#include "align/alignment_controller.h"
#include "align/alignment_panel.h"
#include "align/alignment_view.h"
#include "align_test_support.h"
#include "main_window.h"
#include "support/shared_data.h"
#include "window_screenshots.h"

#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 30000;

bool alignTabEnabled(const MainWindow& window)
{
    return window.tabs()->isTabEnabled(window.tabs()->indexOf(window.alignmentPanel()));
}

TEST(AlignViewWindow, RnnSeq2SeqModelOpensTheAlignmentTab)
{
    MainWindow window;
    AlignmentPanel* panel = window.alignmentPanel();
    ASSERT_NE(panel, nullptr);
    EXPECT_FALSE(alignTabEnabled(window));
    QSignalSpy available(panel, &AlignmentPanel::availableChanged);
    window.openModel(QString::fromStdString(test::sharedPath("models/seq2seq-attn-de-en-toy")));
    QTRY_COMPARE_WITH_TIMEOUT(available.count(), 1, kTimeoutMs);
    EXPECT_TRUE(available.at(0).at(0).toBool());
    EXPECT_TRUE(alignTabEnabled(window));
    EXPECT_EQ(window.tabs()->currentWidget(), panel);
    EXPECT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();

    panel->setSourceText("wir sind chronische geschichtenerzahler .");
    panel->setBeamWidth(2);
    ASSERT_TRUE(test::showAndWait(
        *panel, [&] { panel->align(); }, kTimeoutMs));
    EXPECT_EQ(panel->run()->hypotheses.size(), 2u);
    EXPECT_EQ(panel->view()->matrix().dim(1), 5); // five source words, EOS left out
    window.show();
    test::saveScreenshots(window, "alignment-gru");
}

TEST(AlignViewWindow, DecoderOnlyModelLeavesTheTabDisabled)
{
    MainWindow window;
    QSignalSpy available(window.alignmentPanel(), &AlignmentPanel::availableChanged);
    window.openModel(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/gpt2")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    QTest::qWait(300); // an Alignment job, had one been posted, would have answered by now (it loads nothing new)
    // The window's one probe found no translation model: the Alignment tab is not asked to load it at all.
    EXPECT_EQ(available.count(), 0);
    EXPECT_FALSE(alignTabEnabled(window));
}

} // namespace
} // namespace attn::ui
