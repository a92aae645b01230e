// SPDX-License-Identifier: MIT
// The Compare tab on the demo decoder: two heads, two layers' head means and one head on two prompts. The views show
// the engine's attention (an independent prefill through the engine API), B − A, and the Jensen-Shannon divergence
// per row; a head against itself diverges nowhere.
#include "intervention/attention_compare.h"
#include "intervention/compare_panel.h"
#include "main_window.h"
#include "mechanisms/line_plot.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "plots/heatmap_view.h"
#include "session/session.h"
#include "support/shared_data.h"
#include "tokenizer/tokenizer_loader.h"
#include "widgets/token_link.h"
#include "window_runs.h"
#include "window_screenshots.h"

#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <qcustomplot.h>

#include <Eigen/Core>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 60000;
// The maps show attention derived from the stored queries and keys; the reference is a prefill's captured
// probabilities: other kernels, equal within the 1e-5 the derived-attention tests state for every family. The third
// map and the JS divergence are checked against the two maps as shown: each map holds float32 values, so the third is
// its double value rounded once (2^-24 relative); the floor 0.001 bounds log2 ratios by +-10, hence 1e-6.
constexpr double kTolerance = 1e-5;
constexpr double kFromShown = 1e-6;
const char* kMain = "Ben went to the park. Ben said the magic words: gold wind frog lamp.";
const char* kSecond = "Mia went to the beach. She found a red kite and a shell.";

/// Every layer's attention of `text` on the demo, from a prefill of its own.
std::vector<Tensor> attentionOf(const std::string& text)
{
    const ModelSource source = probeModel(test::demoDecoderPath().toStdString());
    const auto model = loadModel(source);
    const auto tokenizer = loadTokenizer(source);
    std::vector<int64_t> ids;
    for (const Token& t : tokenizer->encode(text))
        ids.push_back(t.id);
    Session session(model);
    return session.prefill(ids)->attention;
}

Tensor headOf(const Tensor& layer, int64_t head)
{
    const int64_t n = layer.dim(1), k = layer.dim(2);
    return Tensor({ n, k }, std::vector<float>(layer.data() + head * n * k, layer.data() + (head + 1) * n * k));
}

/// `view` shows `expected` on every visible cell (the first rows x cols of it).
void expectShows(HeatmapView& view, const Tensor& expected, int64_t rows, double tolerance = kTolerance)
{
    view.flushRedraw();
    const HeatmapMatrix& m = view.matrix();
    ASSERT_EQ(m.rows, rows);
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j <= i; ++j)
            EXPECT_NEAR(m.at(i, j), expected.data()[i * expected.dim(1) + j], tolerance) << i << "," << j;
}

/// What `view` shows, as a [rows, cols] matrix of doubles.
Eigen::MatrixXd shown(HeatmapView& view)
{
    view.flushRedraw();
    const HeatmapMatrix& m = view.matrix();
    Eigen::MatrixXd out(m.rows, m.cols);
    for (int64_t i = 0; i < m.rows; ++i)
        for (int64_t j = 0; j < m.cols; ++j)
            out(i, j) = m.at(i, j);
    return out;
}

/// `view` shows `expected` on every causal cell, to kFromShown.
void expectShowsExactly(HeatmapView& view, const Eigen::MatrixXd& expected)
{
    const Eigen::MatrixXd m = shown(view);
    ASSERT_EQ(m.rows(), expected.rows());
    for (int64_t i = 0; i < m.rows(); ++i)
        for (int64_t j = 0; j <= i; ++j)
            EXPECT_NEAR(m(i, j), expected(i, j), kFromShown) << i << "," << j;
}

/// The JS divergence per row of the two maps as shown, through the float32 rows the panel hands the metric.
std::vector<double> jsOfShown(HeatmapView& a, HeatmapView& b)
{
    const Eigen::MatrixXd ma = shown(a), mb = shown(b);
    std::vector<float> pa(static_cast<size_t>(ma.size())), pb(pa.size());
    for (int64_t i = 0; i < ma.rows(); ++i)
        for (int64_t j = 0; j < ma.cols(); ++j) {
            pa[static_cast<size_t>(i * ma.cols() + j)] = static_cast<float>(ma(i, j));
            pb[static_cast<size_t>(i * ma.cols() + j)] = static_cast<float>(mb(i, j));
        }
    return jsDivergencePerRow(pa.data(), pb.data(), ma.rows(), ma.cols());
}

/// The Compare tab shown with A = head 2.0 and B = head 1.1 of the main input.
/// Waits until the panel's comparison, computed on the engine thread, is shown.
void settle(ComparePanel* panel)
{
    QTRY_VERIFY_WITH_TIMEOUT(!panel->comparing(), kTimeoutMs);
}

ComparePanel* showTwoHeads(MainWindow& window)
{
    ComparePanel* panel = window.comparePanel();
    window.tabs()->setCurrentWidget(panel);
    panel->setMode(ComparePanel::Mode::Heads);
    panel->setSide(false, 2, 0);
    panel->setSide(true, 1, 1);
    settle(panel);
    return panel;
}

TEST(ComparePanel, HeadsLayersAndPromptsShowTheEnginesAttentionAndJs)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, test::demoDecoderPath(), kMain));
    ComparePanel* panel = showTwoHeads(window);
    const std::vector<Tensor> main = attentionOf(kMain);
    const int64_t n = main[0].dim(1);

    // Two heads.
    const Tensor a = headOf(main[2], 0), b = headOf(main[1], 1);
    expectShows(*panel->viewA(), a, n);
    expectShows(*panel->viewB(), b, n);
    expectShowsExactly(*panel->differenceView(), shown(*panel->viewB()) - shown(*panel->viewA()));
    const std::vector<double> js = jsOfShown(*panel->viewA(), *panel->viewB());
    ASSERT_EQ(panel->jsPerRow().size(), js.size());
    for (size_t i = 0; i < js.size(); ++i) {
        EXPECT_NEAR(panel->jsPerRow()[i], js[i], kFromShown) << i;
        EXPECT_EQ(panel->jsPlot()->series().at(0).y[i], panel->jsPerRow()[i]);
    }
    EXPECT_EQ(panel->jsPerRow()[0], 0.0) << "the first query sees one key in both heads";
    EXPECT_GT(*std::max_element(js.begin(), js.end()), 0.01);
    panel->setSide(true, 2, 0);
    settle(panel);
    for (const double v : panel->jsPerRow())
        EXPECT_LE(v, 1e-12) << "a head against itself";

    // Two layers' head means.
    panel->setMode(ComparePanel::Mode::Layers);
    panel->setSide(false, 0, 0);
    panel->setSide(true, 3, 0);
    settle(panel);
    expectShows(*panel->viewA(), headMean(main[0]), n);
    expectShows(*panel->viewB(), headMean(main[3]), n);

    // One head on two prompts: B runs on the engine thread; the common causal length is compared.
    QSignalSpy compared(panel, &ComparePanel::compared);
    panel->setMode(ComparePanel::Mode::Prompts);
    panel->setSide(false, 2, 0);
    panel->setSide(true, 2, 0);
    panel->setPromptB(kSecond);
    compared.clear();
    panel->compare();
    QTRY_VERIFY_WITH_TIMEOUT(compared.count() >= 1, kTimeoutMs);
    const std::vector<Tensor> second = attentionOf(kSecond);
    const int64_t common = std::min(n, second[0].dim(1));
    ASSERT_FALSE(panel->status().startsWith("Error")) << panel->status().toStdString();
    expectShows(*panel->viewB(), headOf(second[2], 0), common);
    expectShows(*panel->viewA(), headOf(main[2], 0), common);
    EXPECT_EQ(static_cast<int64_t>(panel->jsPerRow().size()), common);
    test::saveScreenshots(window, "compare");
}

// A new model opens Compare on two different heads (A against itself would be an empty difference), and the JS
// axis spans the divergence's whole range in nats, [0, ln 2].
TEST(ComparePanel, OpensOnTwoDifferentHeadsWithTheJsAxisFromZeroToLn2)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, test::demoDecoderPath(), kMain));
    ComparePanel* panel = window.comparePanel();
    window.tabs()->setCurrentWidget(panel);
    settle(panel);
    EXPECT_NE(panel->viewA()->caption().title, panel->viewB()->caption().title);
    ASSERT_FALSE(panel->jsPerRow().empty());
    EXPECT_GT(*std::max_element(panel->jsPerRow().begin(), panel->jsPerRow().end()), 0.01);
    const QCPRange range = panel->jsPlot()->plot()->yAxis->range();
    EXPECT_EQ(range.lower, 0.0);
    EXPECT_NEAR(range.upper, std::numbers::ln2, 1e-12);
}

// The ratio map is log2((B + 0.001) / (A + 0.001)) of the engine's weights; zooming one map zooms all three to the
// same rows and keys, and the cell under the mouse in one is banded in all of them.
TEST(ComparePanel, RatioMapLinkedZoomAndHover)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, test::demoDecoderPath(), kMain));
    ComparePanel* panel = showTwoHeads(window);
    const std::vector<Tensor> main = attentionOf(kMain);
    const int64_t n = main[0].dim(1);
    panel->setThird(ComparePanel::Third::Ratio);
    settle(panel);
    expectShows(*panel->viewA(), headOf(main[2], 0), n);
    expectShows(*panel->viewB(), headOf(main[1], 1), n);
    const Eigen::MatrixXd a = shown(*panel->viewA()), b = shown(*panel->viewB());
    expectShowsExactly(*panel->differenceView(),
        b.binaryExpr(a, [](double vb, double va) { return std::log2((vb + 1e-3) / (va + 1e-3)); }));
    EXPECT_EQ(panel->differenceView()->caption().title, "log₂(B / A)");
    EXPECT_NEAR(log2Ratio(0.5, 0.25), std::log2(0.501 / 0.251), 1e-12);
    test::saveScreenshots(window, "compare-ratio");

    // Zoomed once every map is drawn (a map drawn for the first time resets its own zoom, and the others follow).
    for (HeatmapView* v : { panel->viewA(), panel->viewB(), panel->differenceView() })
        v->flushRedraw();
    panel->viewB()->plot()->xAxis->setRange(2.5, 8.5);
    panel->viewB()->plot()->yAxis->setRange(3.5, 9.5);
    QCoreApplication::processEvents();
    for (HeatmapView* v : { panel->viewA(), panel->differenceView() }) {
        v->flushRedraw();
        EXPECT_DOUBLE_EQ(v->plot()->xAxis->range().lower, 2.5);
        EXPECT_DOUBLE_EQ(v->plot()->xAxis->range().upper, 8.5);
        EXPECT_DOUBLE_EQ(v->plot()->yAxis->range().lower, 3.5);
        EXPECT_DOUBLE_EQ(v->plot()->yAxis->range().upper, 9.5);
    }

    HeatmapView* viewA = panel->viewA();
    viewA->flushRedraw();
    const QPoint at = viewA->plot()->mapFrom(viewA, viewA->cellCenter(5, 4));
    QTest::mouseMove(viewA->plot(), at);
    QTRY_COMPARE_WITH_TIMEOUT(panel->link()->hovered().query, int64_t(5), 2000);
    for (HeatmapView* v : { panel->viewB(), panel->differenceView() })
        EXPECT_EQ(v->linkedBands(), (std::pair<int64_t, int64_t> { 5, 4 }));

    panel->setThird(ComparePanel::Third::Difference);
    settle(panel);
    expectShowsExactly(*panel->differenceView(), b - a);
}

/// Opens model `a` on `text`, compares its L1.H2 with model `b`'s on the same token ids and checks that each side
/// shows its own model's prefill of those ids; `worst` is the largest Jensen-Shannon divergence of a row.
void compareTwoModels(
    MainWindow& window, const std::string& a, const std::string& b, const QString& text, double& worst)
{
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, QString::fromStdString(a), text));
    ComparePanel* panel = window.comparePanel();
    window.tabs()->setCurrentWidget(panel);
    QSignalSpy compared(panel, &ComparePanel::compared);
    panel->setMode(ComparePanel::Mode::Models);
    panel->setSide(false, 1, 2);
    panel->setSide(true, 1, 2);
    panel->setModelB(QString::fromStdString(b));
    compared.clear();
    panel->compare();
    QTRY_VERIFY_WITH_TIMEOUT(compared.count() >= 1, kTimeoutMs);
    ASSERT_FALSE(panel->status().startsWith("Error")) << panel->status().toStdString();

    std::vector<int64_t> ids;
    for (const TokenChip& chip : window.runResult()->source)
        ids.push_back(chip.id);
    const auto attentionOn = [&](const std::string& path) { return Session(loadModel(path)).prefill(ids)->attention; };
    const auto n = static_cast<int64_t>(ids.size());
    expectShows(*panel->viewA(), headOf(attentionOn(a)[1], 2), n);
    expectShows(*panel->viewB(), headOf(attentionOn(b)[1], 2), n);
    EXPECT_EQ(panel->viewB()->caption().title, "B: L1.H2, model B");
    worst = *std::max_element(panel->jsPerRow().begin(), panel->jsPerRow().end());
}

// Two models on the same input: the GPT-2 fixture (A) and its float16 copy (B) on the main input's token ids. Each
// side is its model's own prefill of those ids; the half-precision weights move the attention a little, not nowhere.
// A model whose vocabulary lacks the ids is refused, naming it.
TEST(ComparePanel, TwoModelsRunTheSameTokenIds)
{
    MainWindow window;
    double worst = 0.0;
    ASSERT_NO_FATAL_FAILURE(compareTwoModels(window, test::sharedPath("fixtures/hf-tiny/gpt2"),
        test::sharedPath("fixtures/hf-tiny/gpt2-fp16"), "the cat sat on the mat and the dog sat on the log", worst));
    ComparePanel* panel = window.comparePanel();
    QSignalSpy compared(panel, &ComparePanel::compared);
    EXPECT_GT(worst, 0.0) << "float16 weights are not the float32 ones";
    EXPECT_LT(worst, 1e-3) << "but close to them";
    test::saveScreenshots(window, "compare-models");

    panel->setModelB(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/bert")));
    compared.clear();
    panel->compare();
    QTRY_VERIFY_WITH_TIMEOUT(compared.count() >= 1, kTimeoutMs);
    EXPECT_TRUE(panel->status().startsWith("Error")) << panel->status().toStdString();
    EXPECT_TRUE(panel->status().contains("bert") && panel->status().contains("decoder"))
        << panel->status().toStdString();
}

// Two models on the same input as the issue asks for them: a float32 GGUF and its quantized GGUF (llama.cpp's
// genuine stories260K and ggml's Q4_0 of it; ../shared has no float32 sibling of its Q4_K file, kq256). Each side is
// its own file's prefill of the main input's ids, and the 4-bit weights move the attention visibly.
TEST(ComparePanel, AFloat32GgufAndItsQuantizedGgufRunTheSameTokenIds)
{
    MainWindow window;
    double worst = 0.0;
    ASSERT_NO_FATAL_FAILURE(compareTwoModels(window, test::sharedPath("fixtures/gguf/stories260K/stories260K.gguf"),
        test::sharedPath("fixtures/gguf/stories260K/stories260K-Q4_0.gguf"), "Once upon a time, there was a cat",
        worst));
    EXPECT_GT(worst, 1e-6) << "4-bit weights are not the float32 ones";
    EXPECT_LT(worst, std::numbers::ln2) << "Jensen-Shannon divergence is at most ln 2";
}

} // namespace
} // namespace attn::ui
