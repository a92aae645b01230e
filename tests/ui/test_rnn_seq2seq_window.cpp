// SPDX-License-Identifier: MIT
// RNN seq2seq folders in the main window: a source and a target text, two chip rows, and their only attention,
// cross-attention, equal to the alignment tab's teacher forcing (the general layout's demo, and the PyTorch tutorial's
// toy whose attention rows have padded keys past the source).
#include "align/alignment_run.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "session/translator.h"
#include "support/shared_data.h"
#include "widgets/token_chips_view.h"

#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 30000;
const std::string kDemo = std::string(AS_SOURCE_DIR) + "/resources/models/demo-translate-gru";

std::vector<int64_t> chipIds(const TokenChipsView& chips) {
    std::vector<int64_t> out;
    for (const TokenChip& t : chips.tokens())
        out.push_back(t.id);
    return out;
}

QJsonDocument readJson(const std::string& path) {
    QFile file(QString::fromStdString(path));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path;
    return QJsonDocument::fromJson(file.readAll());
}

/// Opens `folder`, runs the pair, and checks the chip rows against the Translator and every cross-attention cell
/// against runAlignment's teacher forcing.
void checkModel(const std::string& folder, const std::string& sourceText, const std::string& targetText) {
    ASSERT_FALSE(sourceText.empty());
    ASSERT_FALSE(targetText.empty());
    const Translator translator(folder);
    const std::vector<int64_t> sourceIds = translator.source(sourceText).ids;
    std::vector<int64_t> decoderIds { translator.startToken() };
    const std::vector<int64_t> targetIds = translator.target(targetText).ids;
    decoderIds.insert(decoderIds.end(), targetIds.begin(), targetIds.end() - 1); // teacher forcing drops EOS
    const AlignmentRunPtr expected = runAlignment(translator, sourceText, targetText, 0);
    const std::vector<Tensor>& steps = expected->hypotheses.front().steps;
    ASSERT_EQ(steps.size(), decoderIds.size());

    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openModel(QString::fromStdString(folder));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    EXPECT_EQ(window.summary()->config.kind, ModelKind::EncoderDecoder);
    EXPECT_GT(window.summary()->parameters, 0);
    // The Alignment tab opens first and has its own inputs; the Input dock with the target row serves the views.
    window.tabs()->setCurrentWidget(window.heatmapView());
    EXPECT_TRUE(window.findChild<QWidget*>("targetText")->isVisibleTo(&window));
    // No self-attention exists: the selector offers cross-attention only.
    const auto* kinds = window.findChild<QComboBox*>("attentionKind");
    ASSERT_EQ(kinds->count(), 1);
    EXPECT_EQ(kinds->itemData(0).toInt(), static_cast<int>(AttentionKind::Cross));

    window.setInputText(QString::fromStdString(sourceText));
    window.setTargetText(QString::fromStdString(targetText));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1 || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    QTRY_COMPARE_WITH_TIMEOUT(chipIds(*window.targetChips()), decoderIds, kTimeoutMs);
    EXPECT_EQ(chipIds(*window.tokenChips()), sourceIds);
    EXPECT_TRUE(window.targetChips()->tokens().front().special); // the start token
    ASSERT_EQ(window.runResult()->views.size(), 1u);
    EXPECT_EQ(window.attentionKind(), AttentionKind::Cross);

    const SnapshotPtr cross = window.snapshot();
    ASSERT_EQ(cross, window.runResult()->view(AttentionKind::Cross));
    ASSERT_EQ(cross->numLayers(), steps.front().dim(0));
    ASSERT_EQ(cross->numHeads(), steps.front().dim(1));
    const auto S = static_cast<int64_t>(sourceIds.size()), T = static_cast<int64_t>(decoderIds.size());
    for (int64_t l = 0; l < cross->numLayers(); ++l)
        for (int64_t h = 0; h < cross->numHeads(); ++h) {
            window.setCurrentHead(l, h);
            window.heatmapView()->flushRedraw();
            const HeatmapMatrix& m = window.heatmapView()->matrix();
            ASSERT_EQ(m.rows, T);
            ASSERT_EQ(m.cols, S);
            for (int64_t t = 0; t < T; ++t)
                for (int64_t s = 0; s < S; ++s)
                    EXPECT_EQ(m.at(t, s), static_cast<double>(steps[static_cast<size_t>(t)].at({ l, h, s })))
                        << "layer " << l << " head " << h << " target " << t << " source " << s;
        }

    // An empty target runs the start token alone: the first teacher-forced row.
    const int runs = static_cast<int>(shown.count());
    window.setTargetText(QString());
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > runs || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    EXPECT_EQ(chipIds(*window.targetChips()), std::vector<int64_t> { translator.startToken() });
    window.setCurrentHead(0, 0);
    window.heatmapView()->flushRedraw();
    const HeatmapMatrix& first = window.heatmapView()->matrix();
    ASSERT_EQ(first.rows, 1);
    ASSERT_EQ(first.cols, S);
    for (int64_t s = 0; s < S; ++s)
        EXPECT_EQ(first.at(0, s), static_cast<double>(steps.front().at({ 0, 0, s }))) << "source " << s;
}

TEST(RnnSeq2SeqWindow, DemoGruSourceAndTargetRowsAndCrossAttention) {
    const QJsonObject reference
        = readJson(kDemo + "/reference.json").object()["cases"].toArray().first().toObject();
    checkModel(kDemo, reference["source"].toString().toStdString(), reference["translation"].toString().toStdString());
}

TEST(RnnSeq2SeqWindow, TutorialToyCrossAttentionLeavesOutPaddedKeys) {
    const std::string toy = test::sharedPath("models/seq2seq-attn-de-en-toy");
    const QJsonObject reference
        = readJson(toy + "/reference_translations_with_attention.json").array().first().toObject();
    const std::string source = reference["src"].toString().toStdString();
    const Translator translator(toy);
    const std::vector<int64_t> sourceIds = translator.source(source).ids;
    const Tensor row = translator.decoder(sourceIds)->step(translator.startToken()).crossAttention;
    EXPECT_GT(row.dim(2), static_cast<int64_t>(sourceIds.size())); // the keys are padded past the source
    checkModel(toy, source, reference["ref"].toString().toStdString());
}

} // namespace
} // namespace attn::ui
