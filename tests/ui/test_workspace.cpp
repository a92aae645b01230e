// SPDX-License-Identifier: MIT
// Workspaces: save, close, open in a new window: the same model, input, head, view settings, tab and decoded tokens
// (a forced one among them), and the same heatmap pixels. The file format is strict.
#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "plots/stats_view.h"
#include "support/shared_data.h"
#include "workspace/workspace.h"
#include "workspace/workspace_controller.h"

#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 30000;
const char* kInput = "Once upon a time, there was a little cat";

void stepDecode(DecodePanel& panel, int n)
{
    for (int i = 0; i < n; ++i) {
        const size_t before = panel.controller()->steps().size();
        panel.stepButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(panel.controller()->steps().size(), before + 1, kTimeoutMs);
    }
}

QImage heatmapPixels(MainWindow& window)
{
    window.tabs()->setCurrentWidget(window.heatmapView());
    window.heatmapView()->flushRedraw();
    QTest::qWait(50);
    return window.heatmapView()->grab().toImage();
}

TEST(Workspace, SaveAndOpenShowsTheSameState)
{
    const std::string dir = test::makeTempDir("workspace");
    const QString file = QString::fromStdString(dir + "/session.attnscope");
    std::vector<int64_t> ids;
    std::vector<TokenOrigin> origins;
    QImage pixels;
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        window.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
        QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
        window.setInputText(kInput);
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->numKeys() > 5, kTimeoutMs);
        window.setCurrentHead(3, 5);
        window.heatmapView()->setColormap(Colormap::Magma);
        HeatmapOptions options;
        options.scale = ScaleMode::Log;
        options.excludeFirstToken = true;
        window.heatmapView()->setOptions(options);
        window.statsView()->setMetric(StatsView::PreviousToken);
        DecodePanel& decode = *window.decodePanel();
        QTRY_VERIFY_WITH_TIMEOUT(decode.controller()->info() != nullptr, kTimeoutMs);
        decode.setPromptText("Once upon a time");
        decode.findChild<QPushButton*>("promptButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(decode.controller()->steps().size() > 3, kTimeoutMs);
        const auto prompt = static_cast<int64_t>(decode.controller()->steps().size());
        stepDecode(decode, 4);
        const int64_t other = decode.controller()->steps()[static_cast<size_t>(prompt + 2)]->candidates.at(1).token.id;
        decode.controller()->force(prompt + 2, other);
        QTRY_COMPARE_WITH_TIMEOUT(decode.controller()->steps().size(), static_cast<size_t>(prompt + 3), kTimeoutMs);
        stepDecode(decode, 3);
        for (const DecodeStepPtr& s : decode.controller()->steps()) {
            ids.push_back(s->token.id);
            origins.push_back(s->origin);
        }
        ASSERT_EQ(origins[static_cast<size_t>(prompt + 2)], TokenOrigin::Forced);
        pixels = heatmapPixels(window);
        window.tabs()->setCurrentWidget(window.statsView());
        window.workspaces()->save(file);
    }

    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QSignalSpy restored(window.workspaces(), &WorkspaceController::restored);
    window.openPath(file);
    QTRY_COMPARE_WITH_TIMEOUT(restored.count(), 1, kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    EXPECT_EQ(window.inputText(), kInput);
    EXPECT_EQ(window.tabs()->currentWidget(), window.statsView());
    EXPECT_EQ(window.statsView()->metric(), StatsView::PreviousToken);
    EXPECT_EQ(window.heatmapView()->layer(), 3);
    EXPECT_EQ(window.heatmapView()->head(), 5);
    EXPECT_EQ(window.heatmapView()->colormap(), Colormap::Magma);
    EXPECT_EQ(window.heatmapView()->options().scale, ScaleMode::Log);
    EXPECT_TRUE(window.heatmapView()->options().excludeFirstToken);
    const std::vector<DecodeStepPtr>& steps = window.decodePanel()->controller()->steps();
    ASSERT_EQ(steps.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        EXPECT_EQ(steps[i]->token.id, ids[i]) << "position " << i;
        EXPECT_EQ(steps[i]->origin, origins[i]) << "position " << i;
    }
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->numKeys() > 5, kTimeoutMs);
    EXPECT_EQ(heatmapPixels(window), pixels) << "the heatmap differs from the saved window's";

    // The next start offers it again.
    MainWindow next;
    next.offerLastWorkspace();
    EXPECT_TRUE(next.findChild<QLabel*>("statusText")->text().contains("session.attnscope"));
}

TEST(Workspace, FileFormatIsStrict)
{
    Workspace w;
    w.model = "/models/x";
    w.decode.promptIds = { 1, 2 };
    w.decode.generatedIds = { 5 };
    w.decode.forced = { true };
    w.decode.sampler.temperature = 0.5f;
    w.decode.sampler.seed = 7;
    const Workspace back = workspaceFromJson(workspaceToJson(w), "test");
    EXPECT_EQ(workspaceToJson(back), workspaceToJson(w));
    EXPECT_EQ(back.decode.forced, w.decode.forced);
    EXPECT_EQ(back.decode.sampler.seed, 7u);
    std::string json = workspaceToJson(w);
    const auto expectError = [](const std::string& text, const char* fragment) {
        try {
            workspaceFromJson(text, "bad.attnscope");
            ADD_FAILURE() << "accepted: " << text;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("bad.attnscope"), std::string::npos) << e.what();
        }
    };
    expectError(R"({"format": "attnscope-workspace/1", "model": "m", "colour": 1})", "unknown key \"colour\"");
    expectError(R"({"format": "attnscope-view-recipe/1", "model": "m"})", "not an AttnScope workspace");
    expectError(R"({"format": "attnscope-workspace/1", "model": "m", "decode": {"prompt_ids": [1], "generated_ids": [2]}})",
        "decode.forced has 0 entries for 1 generated tokens");
    expectError(R"({"format": "attnscope-workspace/1", "model": "m", "layer": "two"})", "\"layer\" must be an integer");
    expectError("[1, 2]", "expected a JSON object");
}

} // namespace
} // namespace attn::ui
