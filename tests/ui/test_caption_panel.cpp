// SPDX-License-Identifier: MIT
// The Caption tab on the hf-tiny ViT + GPT-2 captioner through the window's one engine controller: each step's word
// and its cross-attention as drawn (large map and strip tiles) are HF's greedy tokens and rows, Back drops a word,
// a clicked word is shown large, and the strip exports as .npy [words, heads, patches], PNG and SVG with vector text.
#include "caption/caption_panel.h"
#include "caption/caption_strip.h"
#include "controller/engine_controller.h"
#include "core/npy.h"
#include "main_window.h"
#include "support/shared_data.h"
#include "vision/patch_map_view.h"

#include <QFile>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 30000;
const std::string kFixture = "fixtures/hf-tiny/vision-encoder-decoder";

/// The golden step rows of `layer` [steps, heads, 65] averaged over the heads, without [CLS]: word w's map.
std::vector<float> goldenMeanMap(const Tensor& rows, int64_t word)
{
    const int64_t H = rows.dim(1), S = rows.dim(2);
    std::vector<float> map(static_cast<size_t>(S - 1), 0.0f);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t p = 1; p < S; ++p)
            map[static_cast<size_t>(p - 1)] += rows.data()[(word * H + h) * S + p] / static_cast<float>(H);
    return map;
}

double maxDiff(const std::vector<float>& a, const std::vector<float>& b)
{
    if (a.size() != b.size()) return INFINITY;
    double m = 0;
    for (size_t i = 0; i < a.size(); ++i)
        m = std::max(m, std::abs(static_cast<double>(a[i]) - b[i]));
    return m;
}

/// Steps the panel until it shows `words` words.
void stepTo(CaptionPanel& panel, size_t words)
{
    while (panel.state()->words.size() < words) {
        const size_t before = panel.state()->words.size();
        panel.step();
        QTRY_VERIFY_WITH_TIMEOUT(panel.state()->words.size() > before, kTimeoutMs);
    }
}

TEST(CaptionPanel, StepsShowHfsGreedyWordsAndTheirCrossAttention)
{
    MainWindow window;
    window.resize(1280, 800);
    const QString model = QString::fromStdString(test::sharedPath(kFixture));
    window.openModel(model);
    CaptionPanel* panel = window.captionPanel();
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    EXPECT_EQ(window.tabs()->currentWidget(), panel);
    EXPECT_FALSE(window.tabs()->isTabEnabled(0)); // the text views have nothing to show

    panel->openImage(model + "/input0.png");
    QTRY_VERIFY_WITH_TIMEOUT(panel->state() != nullptr, kTimeoutMs);
    EXPECT_TRUE(panel->state()->words.empty());
    EXPECT_EQ(panel->state()->grid.patches(), 64);
    CaptionOptions greedy;
    greedy.maxNewTokens = 8;
    panel->setOptions(greedy);
    QTRY_VERIFY_WITH_TIMEOUT(panel->state()->options.maxNewTokens == 8, kTimeoutMs);
    stepTo(*panel, 8);
    EXPECT_TRUE(panel->state()->finished);

    const std::vector<int64_t> golden = readNpyInts(test::sharedPath(kFixture + "/golden/item0/greedy_ids.npy"));
    const Tensor rows = readNpy(test::sharedPath(kFixture + "/golden/item0/greedy_cross_attentions.L01.npy"));
    ASSERT_EQ(panel->state()->words.size(), golden.size());
    ASSERT_EQ(panel->strip()->tileCount(), 8);
    for (size_t w = 0; w < golden.size(); ++w) {
        EXPECT_EQ(panel->state()->words[w].token, golden[w]) << "word " << w;
        // What the tile draws: the last decoder layer, mean of the heads, patches only; HF's rows within 1e-5.
        EXPECT_LE(
            maxDiff(panel->strip()->tile(static_cast<int>(w))->values(), goldenMeanMap(rows, static_cast<int64_t>(w))),
            1e-5)
            << "word " << w;
    }
    EXPECT_EQ(panel->selectedWord(), 7); // follows the newest word
    EXPECT_LE(maxDiff(panel->map()->values(), goldenMeanMap(rows, 7)), 1e-5);

    panel->selectWord(2);
    EXPECT_LE(maxDiff(panel->map()->values(), goldenMeanMap(rows, 2)), 1e-5);
    panel->setHead(0, 1); // layer 0, head 1 alone
    const Tensor rows0 = readNpy(test::sharedPath(kFixture + "/golden/item0/greedy_cross_attentions.L00.npy"));
    std::vector<float> head1(rows0.data() + (2 * 4 + 1) * 65 + 1, rows0.data() + (2 * 4 + 1) * 65 + 65);
    EXPECT_LE(maxDiff(panel->map()->values(), head1), 1e-5);
    panel->setHead(1, -1);

    panel->back();
    QTRY_COMPARE_WITH_TIMEOUT(panel->state()->words.size(), size_t { 7 }, kTimeoutMs);
    EXPECT_FALSE(panel->state()->finished);
    EXPECT_EQ(panel->strip()->tileCount(), 7);

    const std::string dir = test::makeTempDir("caption-export");
    panel->exportTo(QString::fromStdString(dir + "/strip.npy"));
    const Tensor data = readNpy(dir + "/strip.npy");
    ASSERT_EQ(data.shape(), (Shape { 7, 4, 64 }));
    EXPECT_NEAR(data.at({ 3, 2, 10 }), rows.at({ 3, 2, 11 }), 1e-5);
    panel->exportTo(QString::fromStdString(dir + "/strip.svg"));
    QFile svg(QString::fromStdString(dir + "/strip.svg"));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    EXPECT_TRUE(svg.readAll().contains(">y<")); // the first word as vector text, not pixels
    panel->exportTo(QString::fromStdString(dir + "/strip.png"));
    EXPECT_TRUE(QFile::exists(QString::fromStdString(dir + "/strip.png")));
}

TEST(CaptionPanel, ABadImageShowsAnErrorAndKeepsTheCaption)
{
    MainWindow window;
    const QString model = QString::fromStdString(test::sharedPath(kFixture));
    window.openModel(model);
    CaptionPanel* panel = window.captionPanel();
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    panel->openImage(model + "/input0.png");
    QTRY_VERIFY_WITH_TIMEOUT(panel->state() != nullptr, kTimeoutMs);
    stepTo(*panel, 2);
    QSignalSpy errors(window.controller(), &EngineController::failed);
    panel->openImage(model + "/config.json");
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, kTimeoutMs);
    EXPECT_TRUE(errors.front().front().toString().contains("config.json"));
    panel->step();
    QTRY_COMPARE_WITH_TIMEOUT(panel->state()->words.size(), size_t { 3 }, kTimeoutMs);
}

// The bundled demo: the tab opens the first held-out sample by itself, Run captions it to the end as PyTorch did.
TEST(CaptionPanel, DemoCaptionerRunsItsFirstSampleToPyTorchsCaption)
{
    const QString model = QStringLiteral(AS_SOURCE_DIR "/resources/models/demo-caption-scenes");
    std::ifstream in((model + "/reference.json").toStdString());
    ASSERT_TRUE(in) << "no reference.json in " << model.toStdString();
    const nlohmann::json cases = nlohmann::json::parse(in)["cases"];
    const nlohmann::json& first = cases[0];
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.openModel(model);
    CaptionPanel* panel = window.captionPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->state() != nullptr, kTimeoutMs);
    EXPECT_TRUE(panel->state()->source.endsWith(QString::fromStdString(first["image"].get<std::string>())));
    panel->toggleRun();
    QTRY_VERIFY_WITH_TIMEOUT(panel->state()->finished, kTimeoutMs);
    EXPECT_FALSE(panel->running());
    EXPECT_EQ(panel->state()->caption.toStdString(), first["greedy_text"].get<std::string>());
    // The README screenshots and the exported strip: written only when asked for, after the same checks.
    if (const QString dir = qEnvironmentVariable("ATTN_CAPTION_SCREENSHOTS"); !dir.isEmpty()) {
        // A sample the demo captions right, with its first object's shape word shown large.
        const auto right = std::find_if(
            cases.begin(), cases.end(), [](const nlohmann::json& c) { return c["greedy_text"] == c["caption"]; });
        ASSERT_NE(right, cases.end());
        panel->openImage(model + "/" + QString::fromStdString((*right)["image"].get<std::string>()));
        QTRY_VERIFY_WITH_TIMEOUT(panel->state()->words.empty(), kTimeoutMs);
        panel->toggleRun();
        QTRY_VERIFY_WITH_TIMEOUT(panel->state()->finished, kTimeoutMs);
        panel->selectWord(static_cast<int>((*right)["objects"][0]["shape_word"].get<int64_t>()));
        for (const QSize size : { QSize(1024, 700), QSize(1280, 800) }) {
            window.resize(size);
            QTest::qWait(300);
            EXPECT_TRUE(
                window.grab().save(QString("%1/caption-%2x%3.png").arg(dir).arg(size.width()).arg(size.height())));
        }
        panel->exportTo(dir + "/caption-strip.png");
        panel->exportTo(dir + "/caption-strip.svg");
    }
}

} // namespace
} // namespace attn::ui
