// SPDX-License-Identifier: MIT
// The bundled Marian-layout translation demo in the Alignment tab, on a held-out sentence with adjective-noun
// reordering ("the white tree" -> "le arbre blanc"): its best head (layer 1 head 2, resources/models/README.md) gives
// exactly the gold alignment, as `attnscope-cli align --layer 1 --head 2` does. AS_ALIGN_DEMO_SCREENSHOT=FILE saves
// the panel (docs/screenshots/alignment-demo.png).
#include "align/alignment_controller.h"
#include "align/alignment_panel.h"
#include "align/alignment_view.h"
#include "align_test_support.h"

#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

const std::string kDemo = std::string(AS_SOURCE_DIR) + "/resources/models/demo-translate-marian";

TEST(AlignmentDemo, BestHeadOfTheMarianDemoGivesTheGoldAlignment)
{
    AlignmentPanel panel;
    panel.resize(1280, 800);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    QSignalSpy available(&panel, &AlignmentPanel::availableChanged);
    panel.openModel(QString::fromStdString(kDemo));
    QTRY_COMPARE_WITH_TIMEOUT(available.count(), 1, 30000);
    ASSERT_TRUE(available.at(0).at(0).toBool()) << panel.lastError().toStdString();

    // heldout.en/.fr/.align line 1 (0-based): "0-0 1-2 2-1 3-3 4-4 5-5 6-6", all sure links.
    panel.setSourceText("the white tree follows a car .");
    panel.setReferenceText("le arbre blanc suit une voiture .");
    panel.setGold(QString::fromStdString(kDemo + "/heldout.align"), 1);
    panel.setBeamWidth(1);
    ASSERT_TRUE(test::showAndWait(panel, [&] { panel.align(); }));
    ASSERT_TRUE(panel.lastError().isEmpty()) << panel.lastError().toStdString();
    AlignmentAggregation head;
    head.heads = AlignmentAggregation::Heads::One;
    head.layer = 1;
    head.head = 2;
    ASSERT_TRUE(test::showAndWait(panel, [&] { panel.setAggregation(head); }));
    ASSERT_TRUE(panel.score().has_value());
    EXPECT_EQ(panel.view()->matrix().dim(0), 7); // target words
    EXPECT_EQ(panel.view()->matrix().dim(1), 7); // source words
    EXPECT_EQ(panel.score()->sure, 7);
    EXPECT_EQ(panel.score()->predicted, 7);
    EXPECT_EQ(panel.score()->hitsSure, 7);
    EXPECT_DOUBLE_EQ(panel.score()->aer, 0.0);
    EXPECT_TRUE(panel.goldWarning().isEmpty()) << panel.goldWarning().toStdString();

    QTest::qWait(50); // let the layouts take the new texts
    const QByteArray out = qgetenv("AS_ALIGN_DEMO_SCREENSHOT");
    if (!out.isEmpty()) {
        EXPECT_TRUE(panel.grab().save(QString::fromUtf8(out)));
    }
}

TEST(AlignmentDemo, AGoldSentenceOfAnotherPairIsFlaggedWithTheOneThatMatches)
{
    AlignmentPanel panel;
    QSignalSpy available(&panel, &AlignmentPanel::availableChanged);
    panel.openModel(QString::fromStdString(kDemo));
    QTRY_COMPARE_WITH_TIMEOUT(available.count(), 1, 30000);
    panel.setSourceText("the white tree follows a car ."); // heldout.en line 1
    panel.setReferenceText("le arbre blanc suit une voiture .");
    panel.setGold(QString::fromStdString(kDemo + "/heldout.align"), 0); // the links of line 0
    panel.setBeamWidth(1);
    ASSERT_TRUE(test::showAndWait(panel, [&] { panel.align(); }));
    ASSERT_TRUE(panel.score().has_value());
    EXPECT_TRUE(panel.goldWarning().contains("sentence 1 of the corpus")) << panel.goldWarning().toStdString();
    EXPECT_TRUE(panel.goldWarning().contains("set the sentence to 1")) << panel.goldWarning().toStdString();
    EXPECT_TRUE(panel.scoreText().contains(panel.goldWarning()));
    panel.setGold(QString::fromStdString(kDemo + "/heldout.align"), 1);
    EXPECT_TRUE(panel.goldWarning().isEmpty()) << panel.goldWarning().toStdString();
}

} // namespace
} // namespace attn::ui
