// SPDX-License-Identifier: MIT
// Issue 21: the first demo opened shows a hint in the status bar, over no plot; "Got it" hides it and it never comes back
// (QSettings), even in a new window.
#include "demo_models.h"
#include "help/first_run_hint.h"
#include "main_window.h"

#include <QLabel>
#include <QPushButton>
#include <QStatusBar>
#include <QSettings>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

DemoModel storiesDemo()
{
    for (const DemoModel& d : bundledDemoModels())
        if (d.path.endsWith("/demo-stories-llama")) return d;
    ADD_FAILURE() << "no bundled stories demo";
    return {};
}

TEST(FirstRunHint, ShownOnTheFirstDemoUntilDismissed)
{
    QSettings().remove(FirstRunHint::kSettingsKey);
    {
        MainWindow window;
        window.resize(1024, 700);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        window.openDemo(storiesDemo());
        auto* hint = window.findChild<FirstRunHint*>();
        ASSERT_NE(hint, nullptr);
        QTest::qWait(50);
        EXPECT_TRUE(hint->isVisible());
        // In the status bar, covering nothing of the central area (the plots), and its one line not clipped.
        EXPECT_TRUE(window.statusBar()->isAncestorOf(hint));
        const QRect central(window.centralWidget()->mapTo(&window, QPoint(0, 0)), window.centralWidget()->size());
        const QRect placed(hint->mapTo(&window, QPoint(0, 0)), hint->size());
        EXPECT_FALSE(central.intersects(placed));
        const auto* text = hint->findChild<QLabel*>("firstRunHintText");
        ASSERT_NE(text, nullptr);
        EXPECT_GE(text->width(), text->sizeHint().width());
        EXPECT_GE(hint->height(), hint->minimumSizeHint().height());
        window.openDemo(storiesDemo()); // a second demo: still one hint
        EXPECT_EQ(window.findChildren<FirstRunHint*>().size(), 1);
        hint->findChild<QPushButton*>("firstRunHintDismiss")->click();
        EXPECT_FALSE(hint->isVisible());
        EXPECT_TRUE(QSettings().value(FirstRunHint::kSettingsKey).toBool());
    }
    MainWindow again;
    again.show();
    again.openDemo(storiesDemo());
    EXPECT_EQ(again.findChild<FirstRunHint*>(), nullptr);
    QSettings().remove(FirstRunHint::kSettingsKey);
}

} // namespace
} // namespace attn::ui
