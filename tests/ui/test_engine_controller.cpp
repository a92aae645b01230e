// SPDX-License-Identifier: MIT
// The engine thread contract with a scripted provider: stale answers dropped, cancel honoured, errors as messages.
#include "controller/engine_controller.h"
#include "core/error.h"
#include "ui_test_support.h"

#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

#include <thread>

namespace attn::ui {
namespace {

/// Runs take `text`.size() * 10 ms in 10 ms steps, so a long text is slow and a short one quick.
class ScriptedProvider : public AttentionProvider {
public:
    const ModelSummary& summary() const override { return m_summary; }
    std::vector<TokenChip> tokenize(const std::string& text, bool) override { return { { text, 1, false } }; }
    RunPtr runPair(const std::string& text, const std::string&, const ProgressFn& progress) override {
        const int steps = static_cast<int>(text.size());
        for (int i = 0; i < steps; ++i) {
            if (!progress(i, steps)) throw Cancelled();
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (text == "bad") throw Error("scripted failure");
        return test::singleTokenRun(text);
    }

private:
    ModelSummary m_summary;
};

ProviderFactory scripted() {
    return [](const std::string& path, ModelRegistry&, const ProgressFn&) -> std::unique_ptr<AttentionProvider> {
        if (path == "missing") throw Error("missing: no such model");
        return std::make_unique<ScriptedProvider>();
    };
}

TEST(EngineController, DropsStaleRunsAndKeepsTheLatest) {
    EngineController controller(scripted());
    QSignalSpy loaded(&controller, &EngineController::modelLoaded);
    QSignalSpy ready(&controller, &EngineController::runReady);
    controller.loadModel("m");
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 5000);
    controller.run(std::string(100, 'a').c_str()); // ~1 s, superseded below
    controller.run("b");
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 5000);
    QTest::qWait(200);
    ASSERT_EQ(ready.count(), 1);
    const auto run = ready.at(0).at(0).value<RunPtr>();
    EXPECT_EQ(run->source.at(0).text, "b");
    EXPECT_FALSE(controller.busy());
}

TEST(EngineController, CancelStopsARunBetweenSteps) {
    EngineController controller(scripted());
    QSignalSpy loaded(&controller, &EngineController::modelLoaded);
    QSignalSpy cancelled(&controller, &EngineController::cancelled);
    QSignalSpy ready(&controller, &EngineController::runReady);
    QSignalSpy busy(&controller, &EngineController::busyChanged);
    controller.loadModel("m");
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 5000);
    QElapsedTimer clock;
    clock.start();
    controller.run(std::string(500, 'a').c_str()); // 5 s unless cancelled
    QTest::qWait(50);
    EXPECT_TRUE(controller.busy());
    controller.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 2000);
    EXPECT_LT(clock.elapsed(), 2000);
    EXPECT_EQ(ready.count(), 0);
    EXPECT_FALSE(controller.busy());
    EXPECT_EQ(busy.last().at(0).toBool(), false);
}

TEST(EngineController, ErrorsBecomeMessagesAndTheWorkerKeepsServing) {
    EngineController controller(scripted());
    QSignalSpy failed(&controller, &EngineController::failed);
    QSignalSpy loaded(&controller, &EngineController::modelLoaded);
    QSignalSpy ready(&controller, &EngineController::runReady);
    controller.run("x");
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
    EXPECT_TRUE(failed.at(0).at(0).toString().contains("no model is open"));
    controller.loadModel("missing");
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, 5000);
    EXPECT_TRUE(failed.at(1).at(0).toString().contains("no such model"));
    controller.loadModel("m");
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 5000);
    controller.run("bad");
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 3, 5000);
    EXPECT_EQ(failed.at(2).at(0).toString(), "scripted failure");
    controller.run("ok");
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 5000);
}

} // namespace
} // namespace attn::ui
