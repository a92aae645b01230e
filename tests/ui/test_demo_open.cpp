// SPDX-License-Identifier: MIT
// File > Demo models: each demo opens on the head it was trained to show (resources/models/README.md), and the
// translation demo fills the main window's target too, so its cross-attention has a row per target piece.
#include "demo_models.h"
#include "main_window.h"
#include "model/attention_snapshot.h"
#include "plots/heatmap_view.h"

#include <QSignalSpy>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

DemoModel demo(const QString& folder)
{
    for (const DemoModel& d : bundledDemoModels())
        if (d.path.endsWith("/" + folder)) return d;
    ADD_FAILURE() << "no bundled demo " << folder.toStdString();
    return {};
}

/// Opens the demo and waits for the snapshot of its sample input (the first snapshot may be of a partial input).
void openAndRun(MainWindow& window, const DemoModel& d, const std::function<bool(const AttentionSnapshot&)>& done)
{
    window.openDemo(d);
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() && done(*window.snapshot()), 60000);
}

TEST(DemoOpen, StoriesDemoOpensOnItsInductionHead)
{
    MainWindow window;
    openAndRun(window, demo("demo-stories-llama"), [](const AttentionSnapshot& s) { return s.numKeys() > 40; });
    EXPECT_EQ(window.heatmapView()->layer(), 2);
    EXPECT_EQ(window.heatmapView()->head(), 0);
}

TEST(DemoOpen, TranslationDemoShowsItsReferenceAsTheTarget)
{
    MainWindow window;
    const DemoModel d = demo("demo-translate-marian");
    ASSERT_FALSE(d.sampleReference.isEmpty());
    openAndRun(window, d, [](const AttentionSnapshot& s) { return s.isCross() && s.numQueries() > 10; });
    EXPECT_EQ(window.targetText(), d.sampleReference);
    EXPECT_EQ(window.heatmapView()->layer(), 1);
    EXPECT_EQ(window.heatmapView()->head(), 2);
}

} // namespace
} // namespace attn::ui
