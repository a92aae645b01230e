// SPDX-License-Identifier: MIT
// Issue 21: the first demo opened shows a hint over the window's corner; "Got it" hides it and it never comes back
// (QSettings), even in a new window.
#include "demo_models.h"
#include "help/first_run_hint.h"
#include "main_window.h"

#include <QPushButton>
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
        EXPECT_TRUE(hint->isVisible());
        // Inside the central area, in its bottom-right corner, and readable.
        const QRect area = window.centralWidget()->rect();
        EXPECT_TRUE(area.contains(hint->geometry())) << hint->geometry().x() << "," << hint->geometry().y();
        EXPECT_GT(hint->geometry().center().x(), area.center().x());
        EXPECT_GE(hint->height(), hint->minimumSizeHint().height());
        window.resize(1280, 800); // follows the window
        QTest::qWait(50);
        EXPECT_EQ(window.centralWidget()->width() - hint->geometry().right() - 1, 12);
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
