// SPDX-License-Identifier: MIT
// The window on real fixtures through the real engine: open, type, select, and compare with HF's attentions.
#include "demo_models.h"
#include "main_window.h"
#include "model/family_registry.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"
#include "ui_test_support.h"
#include "widgets/head_grid_view.h"
#include "widgets/token_chips_view.h"
#include "window_runs.h"

#include <QFileInfo>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 30000;

/// Opens fixture `model`, types its golden text and waits for the attention.
void openAndRun(MainWindow& window, const std::string& model)
{
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openModel(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/" + model)));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    window.setInputText(test::fixtureText(model));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1 || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
}

void expectHeatmapIsGolden(MainWindow& window, const std::string& model, int layer, int head)
{
    window.setCurrentHead(layer, head);
    window.heatmapView()->flushRedraw();
    const SnapshotPtr s = window.snapshot();
    const HeatmapMatrix& m = window.heatmapView()->matrix();
    const Tensor golden = test::goldenAttention(model, layer);
    ASSERT_EQ(m.rows, golden.dim(1));
    ASSERT_EQ(m.cols, golden.dim(2));
    double worst = 0;
    for (int64_t i = 0; i < m.rows; ++i)
        for (int64_t j = 0; j < m.cols; ++j) {
            const float engine = s->head(layer, head)[i * m.cols + j];
            if (s->visible(layer, i, j))
                EXPECT_EQ(m.at(i, j), static_cast<double>(engine)); // the view draws the engine's numbers
            else
                EXPECT_TRUE(std::isnan(m.at(i, j)));
            worst = std::max(worst, std::abs(static_cast<double>(engine) - golden.at({ head, i, j })));
        }
    EXPECT_LE(worst, 1e-5) << model << " layer " << layer << " head " << head << " vs HF";
}

TEST(MainWindow, Gpt2FixtureShowsTheEngineAttention)
{
    MainWindow window;
    window.show();
    openAndRun(window, "gpt2");
    EXPECT_TRUE(window.infoText().contains("Layers: 2")) << window.infoText().toStdString();
    EXPECT_TRUE(window.infoText().contains("Heads: 4"));
    EXPECT_EQ(window.tokenChips()->count(), 26);
    EXPECT_EQ(window.snapshot()->numKeys(), 26);
    expectHeatmapIsGolden(window, "gpt2", 1, 2);
    expectHeatmapIsGolden(window, "gpt2", 0, 0);
    EXPECT_EQ(window.gridView()->thumbnailCount(), 2 * 4);
    const QImage shot = window.grab().toImage();
    EXPECT_FALSE(shot.isNull());
}

// Opening a model from the Decode tab: the tab is disabled while the model loads, and Qt would make the next enabled
// tab current. That was the Router tab, which leaving image mode had enabled for every model; now the window returns
// to Decode once the new model says it generates, and Router stays disabled for a dense model.
TEST(MainWindow, OpeningAModelFromTheDecodeTabReturnsToItAndLeavesRouterDisabled)
{
    MainWindow window;
    window.show();
    openAndRun(window, "gpt2");
    QTabWidget* tabs = window.tabs();
    const auto indexOf = [&](const QString& text) {
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->tabText(i).remove('&') == text) return i;
        return -1;
    };
    const int decode = indexOf("Decode"), router = indexOf("Router");
    ASSERT_GE(decode, 0);
    ASSERT_GE(router, 0);
    EXPECT_FALSE(tabs->isTabEnabled(router)) << "gpt2 has no experts";
    tabs->setCurrentIndex(decode);
    window.openModel(test::demoDecoderPath());
    EXPECT_NE(tabs->currentIndex(), router);
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() && window.summary()->path.ends_with("demo-stories-llama"), kTimeoutMs);
    EXPECT_EQ(tabs->currentIndex(), decode);
    EXPECT_FALSE(tabs->isTabEnabled(router)) << "the demo has no experts";
}

// The tabs a model opens follow from its probed capabilities alone: every bundled demo and fixtures of each kind
// (decoder, encoder, vision, seq2seq, RNN seq2seq, captioner, a bare GGUF) enable exactly Decode for generate,
// Vision for classify, Caption for caption and Alignment for align, and nothing else.
TEST(MainWindow, EveryModelEnablesTheTabsItsCapabilitiesName)
{
    QStringList paths;
    for (const DemoModel& d : bundledDemoModels())
        paths << d.path;
    ASSERT_EQ(paths.size(), 5) << "the bundled demos were not found";
    for (const char* fixture : { "fixtures/hf-tiny/gpt2", "fixtures/hf-tiny/bert", "fixtures/hf-tiny/vit",
             "fixtures/hf-tiny/t5", "fixtures/gguf/stories260K/stories260K.gguf" })
        paths << QString::fromStdString(test::sharedPath(fixture));
    MainWindow window;
    window.show();
    QTabWidget* tabs = window.tabs();
    const auto tab = [&](const QString& text) {
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->tabText(i).remove('&') == text) return i;
        ADD_FAILURE() << "no tab " << text.toStdString();
        return -1;
    };
    const std::pair<const char*, Capability> rules[]
        = { { "Decode", kGenerate }, { "Vision", kClassify }, { "Caption", kCaption }, { "Alignment", kAlign } };
    std::set<std::string> seen;
    for (const QString& path : paths) {
        SCOPED_TRACE(path.toStdString());
        const uint32_t capabilities = probeModel(path.toStdString()).config.capabilities;
        for (const std::string& name : capabilityNames(capabilities))
            seen.insert(name);
        window.openModel(path);
        const QString name = QFileInfo(path).fileName();
        if (capabilities & kClassify)
            QTRY_VERIFY_WITH_TIMEOUT(tabs->isTabEnabled(tab("Vision")), kTimeoutMs);
        else
            QTRY_VERIFY_WITH_TIMEOUT(
                window.summary() && QFileInfo(QString::fromStdString(window.summary()->path)).fileName() == name,
                kTimeoutMs);
        ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
        // The Alignment tab enables itself once its own job has the model: wait for every tab to agree.
        const auto agree = [&] {
            for (const auto& [text, bit] : rules)
                if (tabs->isTabEnabled(tab(text)) != ((capabilities & bit) != 0)) return false;
            return true;
        };
        QTRY_VERIFY_WITH_TIMEOUT(agree(), kTimeoutMs);
        QTest::qWait(200); // and none turns on late
        for (const auto& [text, bit] : rules)
            EXPECT_EQ(tabs->isTabEnabled(tab(text)), (capabilities & bit) != 0) << text;
    }
    EXPECT_EQ(seen, (std::set<std::string> { "generate", "encode", "translate", "align", "classify", "caption" }))
        << "the models above cover every capability";
}

TEST(MainWindow, TheInputTakesATextLongerThanALineEditsDefaultLimit)
{
    // QLineEdit keeps 32,767 characters by default: a 32k-token --input-file used to run only its first ~8,400 tokens.
    MainWindow window;
    QString text;
    while (text.size() < 130000)
        text += " the cat sat on a mat";
    window.setInputText(text);
    EXPECT_EQ(window.inputText().size(), text.size());
}

TEST(MainWindow, BertFixtureMarksSpecialTokens)
{
    MainWindow window;
    openAndRun(window, "bert");
    EXPECT_EQ(window.snapshot()->numKeys(), 12);
    EXPECT_GE(window.tokenChips()->specialCount(), 3); // [CLS], [MASK], [SEP]
    EXPECT_FALSE(window.snapshot()->mask(0).causal);
    expectHeatmapIsGolden(window, "bert", 1, 3);
    EXPECT_EQ(window.gridView()->thumbnailCount(), 2 * 4);
}

TEST(MainWindow, MalformedModelShowsAnErrorAndTheWindowStaysUsable)
{
    const std::string dir = test::makeTempDir("ui-bad-model");
    std::ofstream(dir + "/config.json") << "{ \"model_type\": \"gpt2\", ";
    MainWindow window;
    window.show();
    QSignalSpy errors(&window, &MainWindow::errorShown);
    window.openModel(QString::fromStdString(dir));
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, kTimeoutMs);
    EXPECT_TRUE(window.lastError().contains("config.json")) << window.lastError().toStdString();
    const auto* banner = window.findChild<QLabel*>("errorBanner");
    ASSERT_NE(banner, nullptr);
    EXPECT_TRUE(banner->isVisible());
    EXPECT_EQ(window.summary(), nullptr);

    window.openModel("/nonexistent/model/folder");
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 2, kTimeoutMs);
    EXPECT_TRUE(window.lastError().contains("/nonexistent/model/folder")) << window.lastError().toStdString();
    openAndRun(window, "gpt2");
    EXPECT_FALSE(banner->isVisible());
    EXPECT_EQ(window.gridView()->thumbnailCount(), 8);
}

TEST(MainWindow, EmptyViewsSayWhatIsMissingNotOpenAModelWhenOneIsOpen)
{
    const std::string dir = test::makeTempDir("ui-bad-model-placeholder");
    std::ofstream(dir + "/config.json") << "{ \"model_type\": \"gpt2\", ";
    MainWindow window;
    window.show();
    QSignalSpy errors(&window, &MainWindow::errorShown);
    window.openModel(QString::fromStdString(dir));
    QTRY_VERIFY_WITH_TIMEOUT(errors.count() >= 1, kTimeoutMs);
    window.heatmapView()->flushRedraw();
    EXPECT_EQ(window.heatmapView()->titleText(), "No attention: no model is open (the error is above)");

    window.openModel(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/gpt2")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    window.heatmapView()->flushRedraw();
    EXPECT_EQ(window.heatmapView()->titleText(), "No attention yet: type an input (Enter runs)");
    EXPECT_EQ(window.snapshot(), nullptr);
}

// An input over the 64 positions of the hf-tiny GPT-2 runs its last 64 tokens and says so, also as the first run of
// the process (ctest runs this test alone in its own): it was once refused there and truncated after other tests.
TEST(MainWindow, AnInputOverTheLimitRunsItsLastTokensAsTheProcesssFirstRun)
{
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openModel(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/gpt2")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    QString text;
    for (int i = 0; i < 40; ++i)
        text += "the cat sat on the mat. ";
    window.setInputText(text); // far over the fixture's 64 positions
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1 || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    ASSERT_NE(window.snapshot(), nullptr);
    EXPECT_EQ(window.snapshot()->numKeys(), 64);
    const auto* notice = window.findChild<QLabel*>("inputNotice");
    EXPECT_TRUE(notice->isVisible());
    EXPECT_TRUE(notice->text().contains("keeping the last 64")) << notice->text().toStdString();
    QTest::qWait(500); // nothing refuses it afterwards either (a tab's own run of the same input)
    EXPECT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    // The head statistics' "ready" in the status bar once replaced the notice; under the input it stays.
    EXPECT_TRUE(notice->isVisible() && notice->text().contains("keeping the last 64")) << notice->text().toStdString();
    shown.clear();
    window.setInputText("the cat sat on the mat.");
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, kTimeoutMs);
    EXPECT_FALSE(notice->isVisible()) << "an input that fits has nothing to say";
}

} // namespace
} // namespace attn::ui
