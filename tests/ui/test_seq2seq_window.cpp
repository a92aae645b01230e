// SPDX-License-Identifier: MIT
// Encoder-decoder models in the main window: a source and a target text, two chip rows, and encoder self-, decoder
// self- and cross-attention views compared with HF's goldens of the marian and bart fixtures.
#include "core/npy.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"
#include "ui_test_support.h"
#include "widgets/token_chips_view.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 30000;

std::string fixtureFile(const std::string& model, const std::string& file) {
    return test::sharedPath("fixtures/hf-tiny/" + model + "/" + file);
}

/// The fixtures ship no tokenizer, so both sides are typed as token ids (as in the CLI and the alignment tab).
QString idsText(const std::vector<int64_t>& ids, size_t from, size_t to) {
    QStringList words;
    for (size_t i = from; i < to; ++i)
        words << QString::number(ids[i]);
    return words.join(' ');
}

std::vector<int64_t> chipIds(const TokenChipsView& chips) {
    std::vector<int64_t> out;
    for (const TokenChip& t : chips.tokens())
        out.push_back(t.id);
    return out;
}

double manifestTolerance(const std::string& model, const char* what) {
    QFile file(QString::fromStdString(fixtureFile(model, "manifest.json")));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly));
    const QJsonObject tolerances
        = QJsonDocument::fromJson(file.readAll()).object()["suggested_tolerances"].toObject()["max_abs_diff"].toObject();
    EXPECT_TRUE(tolerances.contains(what)) << what;
    return tolerances[what].toDouble();
}

Tensor golden(const std::string& model, const char* stem, int layer) {
    char name[64];
    std::snprintf(name, sizeof name, "golden/item0/%s.L%02d.npy", stem, layer);
    return readNpy(fixtureFile(model, name));
}

/// The heatmap of (layer, head) of the view `kind` draws exactly the engine's numbers, and they are HF's.
void expectHeatmapIsGolden(
    MainWindow& window, AttentionKind kind, const std::string& model, const char* stem, int layer, int head) {
    window.setAttentionKind(kind);
    window.setCurrentHead(layer, head);
    window.heatmapView()->flushRedraw();
    const SnapshotPtr s = window.snapshot();
    ASSERT_EQ(s, window.runResult()->view(kind));
    const HeatmapMatrix& m = window.heatmapView()->matrix();
    const Tensor g = golden(model, stem, layer);
    ASSERT_EQ(m.rows, g.dim(1));
    ASSERT_EQ(m.cols, g.dim(2));
    double worst = 0;
    for (int64_t i = 0; i < m.rows; ++i)
        for (int64_t j = 0; j < m.cols; ++j) {
            const float engine = s->head(layer, head)[i * m.cols + j];
            if (s->visible(layer, i, j)) {
                EXPECT_EQ(m.at(i, j), static_cast<double>(engine));
                worst = std::max(worst, std::abs(static_cast<double>(engine) - g.at({ head, i, j })));
            } else {
                EXPECT_TRUE(std::isnan(m.at(i, j)));
                EXPECT_EQ(g.at({ head, i, j }), 0.0f); // masked for HF too
            }
        }
    EXPECT_LE(worst, manifestTolerance(model, stem)) << model << " " << stem << " " << layer << "." << head;
}

void checkFixture(const std::string& model) {
    const std::vector<int64_t> source = readNpyInts(fixtureFile(model, "golden/item0/input_ids.npy"));
    const std::vector<int64_t> decoder = readNpyInts(fixtureFile(model, "golden/item0/decoder_input_ids.npy"));
    ASSERT_GE(decoder.size(), 2u);

    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openModel(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/" + model)));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    EXPECT_TRUE(window.findChild<QWidget*>("targetText")->isVisibleTo(&window));
    window.setInputText(idsText(source, 0, source.size()));
    // Teacher forcing feeds the start token and the target minus its last piece: the target text is what HF's
    // decoder_input_ids holds after the start token.
    window.setTargetText(idsText(decoder, 1, decoder.size()));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1 || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    QTRY_COMPARE_WITH_TIMEOUT(chipIds(*window.targetChips()), decoder, kTimeoutMs);
    EXPECT_EQ(chipIds(*window.tokenChips()), source);
    EXPECT_TRUE(window.targetChips()->tokens().front().special); // the decoder start token
    EXPECT_EQ(window.runResult()->views.size(), 3u);

    // Cross-attention is the default: target queries down, source keys across.
    EXPECT_EQ(window.attentionKind(), AttentionKind::Cross);
    const SnapshotPtr cross = window.runResult()->view(AttentionKind::Cross);
    EXPECT_EQ(cross->queryTokens().size(), decoder.size());
    EXPECT_EQ(cross->tokens().size(), source.size());
    EXPECT_EQ(cross->queryTokens()[1].id, decoder[1]);
    expectHeatmapIsGolden(window, AttentionKind::Cross, model, "cross_attentions", 1, 2);
    expectHeatmapIsGolden(window, AttentionKind::Cross, model, "cross_attentions", 0, 0);
    expectHeatmapIsGolden(window, AttentionKind::EncoderSelf, model, "encoder_attentions", 1, 3);
    expectHeatmapIsGolden(window, AttentionKind::DecoderSelf, model, "decoder_attentions", 1, 1);
    EXPECT_TRUE(window.heatmapView()->cellToolTip(1, 0).contains("query 1"));
}

TEST(Seq2SeqWindow, MarianSourceAndTargetRowsAndCrossAttention) { checkFixture("marian"); }

TEST(Seq2SeqWindow, BartSourceAndTargetRowsAndCrossAttention) { checkFixture("bart"); }

TEST(Seq2SeqWindow, TargetRowIsHiddenForDecoderOnlyModels) {
    MainWindow window;
    window.show();
    window.openModel(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/gpt2")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    EXPECT_FALSE(window.findChild<QWidget*>("targetText")->isVisibleTo(&window));
    EXPECT_EQ(window.attentionKind(), AttentionKind::Self);
}

} // namespace
} // namespace attn::ui
