// SPDX-License-Identifier: MIT
// Workspaces: save, close, open in a new window: the same model, input, head, token range, view settings, tab and
// decoded tokens
// (a forced one among them) and the branch the force left, the Intervene tab's ablations, and the same heatmap pixels.
// The file format is strict.
#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "intervention/intervention_panel.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "plots/stats_view.h"
#include "file_dialogs.h"
#include "support/shared_data.h"
#include "widgets/token_range_bar.h"
#include "workspace/workspace.h"
#include "workspace/workspace_controller.h"

#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QFileInfo>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 30000;
const char* kInput = "Once upon a time, there was a little cat";
const TokenRange kRange { 2, 7, 2, 7 }; // positions 2-6 of the queries and keys

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
    std::vector<int64_t> branch;
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
        // Tokens 2-6 in the toolbar: the heatmap (and so its saved pixels) shows that block only.
        window.rangeBar()->fromBox()->setValue(2);
        window.rangeBar()->toBox()->setValue(6);
        ASSERT_EQ(window.tokenLink()->range(), kRange);
        DecodePanel& decode = *window.decodePanel();
        QTRY_VERIFY_WITH_TIMEOUT(decode.controller()->info() != nullptr, kTimeoutMs);
        decode.setPromptText("Once upon a time");
        decode.findChild<QPushButton*>("promptButton")->click();
        QTRY_VERIFY_WITH_TIMEOUT(decode.controller()->steps().size() > 3, kTimeoutMs);
        const auto prompt = static_cast<int64_t>(decode.controller()->steps().size());
        stepDecode(decode, 4);
        std::vector<int64_t> original; // the timeline before the force: a branch from then on
        for (const DecodeStepPtr& s : decode.controller()->steps())
            original.push_back(s->token.id);
        const int64_t other = decode.controller()->steps()[static_cast<size_t>(prompt + 2)]->candidates.at(1).token.id;
        decode.controller()->force(prompt + 2, other);
        QTRY_COMPARE_WITH_TIMEOUT(decode.controller()->steps().size(), static_cast<size_t>(prompt + 3), kTimeoutMs);
        stepDecode(decode, 3);
        for (const DecodeStepPtr& s : decode.controller()->steps()) {
            ids.push_back(s->token.id);
            origins.push_back(s->origin);
        }
        ASSERT_EQ(origins[static_cast<size_t>(prompt + 2)], TokenOrigin::Forced);
        ASSERT_EQ(decode.controller()->branches().size(), 1u);
        branch = original;
        window.interventionPanel()->addAblation({ { { 1, 2 }, { 3, 0 } }, AblationMode::Scale, 0.5f });
        window.interventionPanel()->addAblation({ { { 0, 1 } }, AblationMode::Mean, 0.0f });
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
    // The timeline the force left behind is a branch again, token for token.
    const auto& branches = window.decodePanel()->controller()->branches();
    ASSERT_EQ(branches.size(), 1u);
    ASSERT_EQ(branches[0].size(), branch.size());
    for (size_t i = 0; i < branch.size(); ++i)
        EXPECT_EQ(branches[0][i]->token.id, branch[i]) << "branch position " << i;
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->numKeys() > 5, kTimeoutMs);
    // The range comes back with the input's run (the decode replay can finish first), before the pixels are compared.
    EXPECT_TRUE(QTest::qWaitFor([&] { return window.tokenLink()->range() == kRange; }, kTimeoutMs))
        << "the token range is not restored";
    EXPECT_EQ(window.rangeBar()->fromBox()->value(), 2);
    EXPECT_EQ(window.rangeBar()->toBox()->value(), 6);
    EXPECT_EQ(heatmapPixels(window), pixels) << "the heatmap differs from the saved window's";
    QTRY_COMPARE_WITH_TIMEOUT(window.interventionPanel()->ablations().size(), size_t(2), kTimeoutMs);
    const std::vector<Ablation>& ablations = window.interventionPanel()->ablations();
    EXPECT_EQ(workspaceAblation(ablations[0]), (WorkspaceAblation { "1.2,3.0", "scale:0.5" }));
    EXPECT_EQ(workspaceAblation(ablations[1]), (WorkspaceAblation { "0.1", "mean" }));
    QTRY_VERIFY_WITH_TIMEOUT(window.interventionPanel()->result() != nullptr, kTimeoutMs); // the diff is run again

    // The next start offers it again.
    MainWindow next;
    next.offerLastWorkspace();
    EXPECT_TRUE(next.findChild<QLabel*>("statusText")->text().contains("session.attnscope"));
}

// File > Save workspace (its dialog answered with a name without the extension) lists the workspace first in
// File > Open recent, also in the next window; choosing it there opens it: the model, input and head come back.
TEST(Workspace, SavedWorkspacesAreListedInOpenRecentAndOpenFromThere)
{
    const QString base = QString::fromStdString(test::makeTempDir("workspace-recent") + "/recent");
    const QString file = base + ".attnscope";
    {
        MainWindow window;
        window.show();
        window.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
        QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
        window.setInputText(kInput);
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && window.snapshot()->numKeys() > 5, kTimeoutMs);
        window.setCurrentHead(2, 6);
        test::OfferedFile offered;
        test::answerNextFileDialog(&offered, base);
        window.findChild<QAction*>("actionSaveWorkspace")->trigger();
        ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
        ASSERT_TRUE(QFileInfo::exists(file));
        const QList<QAction*> recent = window.findChild<QMenu*>("menuRecent")->actions();
        ASSERT_FALSE(recent.isEmpty());
        EXPECT_EQ(recent.front()->text(), file);
    }
    MainWindow next;
    next.show();
    const QList<QAction*> recent = next.findChild<QMenu*>("menuRecent")->actions();
    ASSERT_FALSE(recent.isEmpty());
    ASSERT_EQ(recent.front()->text(), file);
    QSignalSpy restored(next.workspaces(), &WorkspaceController::restored);
    recent.front()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(restored.count(), 1, kTimeoutMs);
    ASSERT_TRUE(next.lastError().isEmpty()) << next.lastError().toStdString();
    ASSERT_NE(next.summary(), nullptr);
    EXPECT_TRUE(QString::fromStdString(next.summary()->path).endsWith("stories260K.bin"));
    EXPECT_EQ(next.inputText(), kInput);
    QTRY_VERIFY_WITH_TIMEOUT(next.snapshot() && next.snapshot()->numKeys() > 5, kTimeoutMs);
    EXPECT_EQ(next.heatmapView()->layer(), 2);
    EXPECT_EQ(next.heatmapView()->head(), 6);
}

TEST(Workspace, FileFormatIsStrict)
{
    Workspace w;
    w.model = "/models/x";
    w.decode.promptIds = { 1, 2 };
    w.decode.current = { { 5 }, { true } };
    w.decode.branches = { { { 6, 7 }, { false, false } } };
    w.decode.sampler.temperature = 0.5f;
    w.decode.sampler.seed = 7;
    w.ablations = { { "1.2,3.0", "scale:0.5" }, { "0.0", "zero" } };
    w.range = { 1, 4, 3, -1 };
    const Workspace back = workspaceFromJson(workspaceToJson(w), "test");
    EXPECT_EQ(back.range, w.range);
    EXPECT_EQ(workspaceToJson(back), workspaceToJson(w));
    EXPECT_EQ(back.decode.current, w.decode.current);
    EXPECT_EQ(back.decode.branches, w.decode.branches);
    EXPECT_EQ(back.decode.sampler.seed, 7u);
    EXPECT_EQ(back.ablations, w.ablations);
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
    expectError(
        R"({"format": "attnscope-workspace/1", "model": "m", "decode": {"prompt_ids": [1], "branches": [{"generated_ids": [2], "forced": []}]}})",
        "decode.branches[0].forced has 0 entries for 1 generated tokens");
    expectError(R"({"format": "attnscope-workspace/1", "model": "m", "layer": "two"})", "\"layer\" must be an integer");
    expectError("[1, 2]", "expected a JSON object");
    expectError(R"({"format": "attnscope-workspace/1", "model": "m", "token_range": [0, 4]})",
        "\"token_range\" must be an object");
    expectError(R"({"format": "attnscope-workspace/1", "model": "m", "token_range": {"key_begin": 2, "rows": 1}})",
        "unknown key \"token_range.rows\"");
    expectError(R"({"format": "attnscope-workspace/1", "model": "m", "token_range": {"key_begin": 5, "key_end": 5}})",
        "token_range.key_begin 5 and .key_end 5 are not a range");
    expectError(R"({"format": "attnscope-workspace/1", "model": "m", "token_range": {"query_begin": -1}})",
        "token_range.query_begin -1 and .query_end -1 are not a range");
    expectError(R"({"format": "attnscope-workspace/1", "model": "m", "token_range": {"key_end": "all"}})",
        "\"key_end\" must be an integer");
    // A workspace from before the shared range opens on all tokens; a partial range keeps the defaults for the rest.
    EXPECT_TRUE(workspaceFromJson(R"({"format": "attnscope-workspace/1", "model": "m"})", "old").range.all());
    EXPECT_EQ(workspaceFromJson(
                  R"({"format": "attnscope-workspace/1", "model": "m", "token_range": {"key_begin": 3, "key_end": 8}})",
                  "partial")
                  .range,
        (TokenRange { 0, -1, 3, 8 }));
    expectError(R"({"format": "attnscope-workspace/1", "model": "m", "ablations": [{"heads": "0.1", "mode": "half"}]})",
        "ablation mode \"half\": expected zero, mean or scale:F");
    expectError(
        R"({"format": "attnscope-workspace/1", "model": "m", "ablations": [{"heads": "0.1", "mode": "zero", "x": 1}]})",
        "unknown key \"ablations.x\"");
}

} // namespace
} // namespace attn::ui
