// SPDX-License-Identifier: MIT
// Step-by-step decoding in the Alignment tab: each Step runs one decoder step on the engine thread and the view grows
// by that token's cross-attention row (the GRU toy: the tutorial's own attention); the finished greedy translation is
// what `attnscope-cli translate` prints (toy and hf-tiny MarianMT); Run/Pause, Back and Reset. Symmetrization with the
// other direction from a reverse Pharaoh file (hand-made links) and from a reverse model.
#include "align/alignment_controller.h"
#include "align/alignment_panel.h"
#include "align/alignment_view.h"
#include "align_test_support.h"
#include "core/npy.h"
#include "support/shared_data.h"

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 30000;
const char* kToy = "models/seq2seq-attn-de-en-toy";

nlohmann::json toyReference(size_t sentence)
{
    std::ifstream in(test::sharedPath(std::string(kToy) + "/reference_translations_with_attention.json"));
    return nlohmann::json::parse(in).at(sentence);
}

std::string cliTranslate(const std::string& model, const std::string& args)
{
    std::string out;
    EXPECT_EQ(test::runCommand(test::cliPath() + " translate " + model + " " + args, &out), 0) << out;
    if (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
}

void openModel(AlignmentPanel& panel, const std::string& dir)
{
    QSignalSpy available(&panel, &AlignmentPanel::availableChanged);
    panel.openModel(QString::fromStdString(dir));
    QTRY_COMPARE_WITH_TIMEOUT(available.count(), 1, kTimeoutMs);
    ASSERT_TRUE(available.at(0).at(0).toBool()) << panel.lastError().toStdString();
}

/// Presses Step once and waits for its row.
void stepOnce(AlignmentPanel& panel)
{
    const AlignmentRunPtr before = panel.run();
    ASSERT_TRUE(test::showAndWait(
        panel,
        [&] {
            panel.step();
            EXPECT_EQ(panel.run(), before); // the step runs on the engine thread: nothing is computed in the call
        },
        kTimeoutMs));
    ASSERT_TRUE(panel.lastError().isEmpty()) << panel.lastError().toStdString();
}

void runToTheEnd(AlignmentPanel& panel)
{
    QSignalSpy changed(panel.controller(), &AlignmentController::decodingChanged);
    panel.runDecoding();
    QTRY_VERIFY_WITH_TIMEOUT(
        !changed.isEmpty() && changed.last().at(1).toBool() && !changed.last().at(2).toBool(), kTimeoutMs);
    ASSERT_TRUE(panel.lastError().isEmpty()) << panel.lastError().toStdString();
}

TEST(AlignDecoding, EachStepAddsTheNewTokensAttentionRow)
{
    AlignmentPanel panel;
    openModel(panel, test::sharedPath(kToy));
    const nlohmann::json ref = toyReference(0); // man wei sehr wenig uber sie . -> they re very little understood .
    const std::string source = ref["src"].get<std::string>();
    panel.setSourceText(QString::fromStdString(source));
    const auto& tutorial = ref["attention"];
    const int64_t S = 7; // source words, EOS left out
    for (int64_t t = 0; t < 6; ++t) {
        stepOnce(panel);
        const AlignmentRunPtr run = panel.run();
        ASSERT_TRUE(run->stepwise);
        ASSERT_EQ(run->hypotheses.size(), 1u);
        EXPECT_EQ(static_cast<int64_t>(run->hypotheses[0].steps.size()), t + 1);
        const Tensor& m = panel.view()->matrix();
        ASSERT_EQ(m.shape(), (Shape { t + 1, S })) << "step " << t;
        EXPECT_EQ(panel.view()->newestRow(), t);
        // Earlier rows stay as they were; the new one is the tutorial's attention of output step t.
        for (int64_t s = 0; s < S; ++s)
            EXPECT_NEAR(
                m.data()[t * S + s], tutorial[static_cast<size_t>(t)][static_cast<size_t>(s)].get<double>(), 2e-6)
                << "step " << t << " word " << s;
    }
    stepOnce(panel); // EOS: a step, but no word row
    const AlignmentHypothesis& greedy = panel.run()->hypotheses[0];
    EXPECT_TRUE(greedy.finished);
    EXPECT_EQ(greedy.steps.size(), 7u);
    EXPECT_EQ(panel.view()->matrix().dim(0), 6);
    EXPECT_EQ(greedy.text, cliTranslate(test::sharedPath(kToy), "--prompt '" + source + "'"));
    EXPECT_EQ(greedy.text, ref["hyp"].get<std::string>());
    EXPECT_FALSE(panel.findChild<QPushButton*>("alignStep")->isEnabled());

    // Back drops one token; a new Step brings back the very same row.
    const Tensor full = panel.view()->matrix();
    ASSERT_TRUE(test::showAndWait(
        panel, [&] { panel.back(); }, kTimeoutMs));
    ASSERT_TRUE(test::showAndWait(
        panel, [&] { panel.back(); }, kTimeoutMs));
    EXPECT_EQ(panel.run()->hypotheses[0].steps.size(), 5u);
    EXPECT_EQ(panel.view()->matrix().dim(0), 5);
    EXPECT_TRUE(panel.findChild<QPushButton*>("alignStep")->isEnabled());
    stepOnce(panel);
    EXPECT_EQ(panel.view()->matrix().storage(), std::vector<float>(full.data(), full.data() + 6 * S));
    // Reset: no target token, nothing drawn.
    ASSERT_TRUE(test::showAndWait(
        panel, [&] { panel.resetDecoding(); }, kTimeoutMs));
    EXPECT_TRUE(panel.run()->empty());
    EXPECT_TRUE(panel.view()->matrix().empty());
    // A new source starts over: sentence 3's words, one decoded token.
    const std::string other = toyReference(3)["src"].get<std::string>();
    panel.setSourceText(QString::fromStdString(other));
    stepOnce(panel);
    EXPECT_EQ(panel.run()->hypotheses[0].steps.size(), 1u);
    std::istringstream words(other);
    EXPECT_EQ(panel.run()->source.words,
        std::vector<std::string>(std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()));
}

TEST(AlignDecoding, RunGoesToTheEndAndPauseStopsAfterTheStepInFlight)
{
    AlignmentPanel panel;
    openModel(panel, test::sharedPath(kToy));
    const nlohmann::json ref = toyReference(6);
    panel.setSourceText(QString::fromStdString(ref["src"].get<std::string>()));
    QSignalSpy changed(panel.controller(), &AlignmentController::decodingChanged);
    panel.runButton()->click(); // Run
    EXPECT_EQ(panel.runButton()->text(), QStringLiteral("&Pause"));
    panel.runButton()->click(); // Pause before the first result: that step still lands, no second one is posted
    QTRY_COMPARE_WITH_TIMEOUT(changed.count(), 1, kTimeoutMs);
    QTest::qWait(300);
    EXPECT_EQ(changed.count(), 1);
    EXPECT_EQ(panel.run()->hypotheses[0].steps.size(), 1u);
    EXPECT_EQ(panel.runButton()->text(), QStringLiteral("&Run"));
    runToTheEnd(panel);
    EXPECT_EQ(panel.run()->hypotheses[0].text, ref["hyp"].get<std::string>());
    EXPECT_EQ(panel.run()->hypotheses[0].steps.size(), ref["attention"].size());
}

// MarianMT fixture (no tokenizer: texts are ids). Run decodes until EOS or 64 tokens, like translate with that cap.
TEST(AlignDecoding, MarianGreedyEqualsTranslate)
{
    const std::string dir = test::sharedPath("fixtures/hf-tiny/marian");
    AlignmentPanel panel;
    openModel(panel, dir);
    std::string ids;
    for (int64_t id : readNpyInts(dir + "/golden/item0/input_ids.npy"))
        ids += std::to_string(id) + " ";
    panel.setSourceText(QString::fromStdString(ids));
    stepOnce(panel);
    EXPECT_EQ(panel.view()->matrix().dim(0), 1);
    runToTheEnd(panel);
    const AlignmentHypothesis& greedy = panel.run()->hypotheses[0];
    EXPECT_EQ(greedy.text, cliTranslate(dir, "--tokens '" + ids + "' --max-new-tokens 64"));
    EXPECT_EQ(panel.run()->layers(), 2);
}

// The toy's sentence 0 teacher-forced; a reverse Pharaoh file (its i = our target word) gives the other direction.
TEST(AlignDecoding, SymmetrizesWithAReverseAlignmentFile)
{
    AlignmentPanel panel;
    openModel(panel, test::sharedPath(kToy));
    const nlohmann::json ref = toyReference(0);
    panel.setSourceText(QString::fromStdString(ref["src"].get<std::string>()));
    panel.setReferenceText("they re very little understood .");
    panel.setBeamWidth(0);
    ASSERT_TRUE(test::showAndWait(
        panel, [&] { panel.align(); }, kTimeoutMs));
    const Links forward = argmaxPerTarget(panel.view()->matrix());
    // Hand-made reverse links, (target, source): they-man re-wei very-sehr little-wenig understood-uber .-.
    QTemporaryDir dir;
    const QString file = dir.filePath("reverse.pharaoh");
    std::ofstream(file.toStdString()) << "0-0\n0-0 1-1 2-2 3-3 4-4 5-6\n";
    panel.setGold(QString(), 1); // line 1 of the reverse file
    panel.setReverse(file);
    const Links reverse { { 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 }, { 6, 5 } };
    QComboBox* rules = nullptr;
    for (QComboBox* box : panel.findChildren<QComboBox*>())
        if (box->count() == 6 && box->itemText(2) == "intersection") rules = box;
    ASSERT_NE(rules, nullptr);
    rules->setCurrentIndex(5); // reverse direction alone
    EXPECT_EQ(panel.view()->links(), reverse) << panel.lastError().toStdString();
    rules->setCurrentIndex(2);
    EXPECT_EQ(panel.view()->links(), intersectLinks(forward, reverse));
    rules->setCurrentIndex(4);
    EXPECT_EQ(panel.view()->links(), growDiag(forward, reverse, true));
    EXPECT_TRUE(panel.directionsText().contains("reverse file")) << panel.directionsText().toStdString();
    // Line 0 has a link, and too few: the shown alignment uses it; an out-of-range line is an error.
    panel.setGold(QString(), 0);
    EXPECT_EQ(panel.view()->links(), growDiag(forward, Links { { 0, 0 } }, true));
    panel.setGold(QString(), 4);
    EXPECT_TRUE(panel.lastError().contains("no sentence 4")) << panel.lastError().toStdString();
    // Without a reverse direction, the rules fall back to the two argmax directions of the shown matrix.
    panel.setGold(QString(), 0);
    panel.setReverse(QString());
    EXPECT_EQ(panel.view()->links(), growDiag(forward, argmaxPerSource(panel.view()->matrix()), true));
    EXPECT_TRUE(panel.directionsText().contains("argmax per source")) << panel.directionsText().toStdString();
}

// A reverse model (the Marian fixture both ways, on ids): each hypothesis gets the reverse model's links, and the
// shown grow-diag combines them with the forward argmax.
TEST(AlignDecoding, SymmetrizesWithAReverseModel)
{
    const std::string dir = test::sharedPath("fixtures/hf-tiny/marian");
    AlignmentPanel panel;
    openModel(panel, dir);
    QSignalSpy reverseOpened(panel.controller(), &AlignmentController::reverseOpened);
    panel.setReverse(QString::fromStdString(dir));
    QTRY_COMPARE_WITH_TIMEOUT(reverseOpened.count(), 1, kTimeoutMs);
    const std::string source = "120 33 7 91 15 0", target = "44 12 8 19";
    panel.setSourceText(QString::fromStdString(source));
    panel.setReferenceText(QString::fromStdString(target));
    panel.setBeamWidth(0);
    ASSERT_TRUE(test::showAndWait(
        panel, [&] { panel.align(); }, kTimeoutMs));
    ASSERT_TRUE(panel.lastError().isEmpty()) << panel.lastError().toStdString();
    const AlignmentHypothesis& hyp = panel.run()->hypotheses[0];
    ASSERT_TRUE(hyp.reverseLinks.has_value());
    // Independently: the reverse model teacher-forced on (target -> source), its last layer's head mean.
    const Translator reverse(dir);
    const AlignmentRunPtr back = runAlignment(reverse, "44 12 8 19", "120 33 7 91 15", 0);
    const Tensor m = wordMatrix(back->hypotheses[0], back->source, { AlignmentAggregation::Heads::Mean, 0, 1 });
    ASSERT_EQ(m.shape(), (Shape { 5, 4 }));
    EXPECT_EQ(*hyp.reverseLinks, transposeLinks(argmaxPerTarget(m)));
    QComboBox* rules = nullptr;
    for (QComboBox* box : panel.findChildren<QComboBox*>())
        if (box->count() == 6 && box->itemText(2) == "intersection") rules = box;
    ASSERT_NE(rules, nullptr);
    rules->setCurrentIndex(3);
    EXPECT_EQ(panel.view()->links(), growDiag(argmaxPerTarget(panel.view()->matrix()), *hyp.reverseLinks, false));
    EXPECT_TRUE(panel.directionsText().contains("reverse model")) << panel.directionsText().toStdString();
}

} // namespace
} // namespace attn::ui
