// SPDX-License-Identifier: MIT
#include "window_runs.h"

#include "demo_models.h"
#include "main_window.h"

#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::test {

namespace {
constexpr int kTimeoutMs = 60000;
} // namespace

QString demoDecoderPath()
{
    for (const ui::DemoModel& d : ui::bundledDemoModels())
        if (d.path.endsWith("/demo-stories-llama")) return d.path;
    ADD_FAILURE() << "no bundled demo-stories-llama";
    return {};
}

void openAndRun(ui::MainWindow& window, const QString& model, const QString& text)
{
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QSignalSpy run(&window, &ui::MainWindow::snapshotShown);
    window.openModel(model);
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    if (text.isEmpty()) return;
    window.setInputText(text);
    QTRY_VERIFY_WITH_TIMEOUT(run.count() >= 1 || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << "error: '" << window.lastError().toStdString() << "'";
}

} // namespace attn::test
