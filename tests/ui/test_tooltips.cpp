// SPDX-License-Identifier: MIT
// Issue 21: every control says what it does. On each demo (text, translation, vision, captioning) every enabled tab
// is made current and every visible button, combo box, spin box, slider and line edit of the window (the tab, the
// docks and the toolbar) must have a non-empty tooltip. Qt's own parts (a spin box's editor, a tab bar's scroll
// arrows, a dock's title buttons) are not ours to describe.
#include "demo_models.h"
#include "main_window.h"
#include "model/attention_snapshot.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDockWidget>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QToolBar>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

bool isQtPart(const QWidget* w)
{
    const QWidget* parent = w->parentWidget();
    return w->objectName().startsWith("qt_") || qobject_cast<const QTabBar*>(parent)
        || qobject_cast<const QAbstractSpinBox*>(parent) || qobject_cast<const QComboBox*>(parent)
        || qobject_cast<const QDockWidget*>(parent);
}

/// "class 'objectName' ('text')" of every visible control of the current tab without a tooltip.
QStringList controlsWithoutTooltip(MainWindow& window)
{
    QStringList missing;
    for (QWidget* w : window.findChildren<QWidget*>()) {
        const bool control = qobject_cast<QAbstractButton*>(w) || qobject_cast<QComboBox*>(w)
            || qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QSlider*>(w) || qobject_cast<QLineEdit*>(w);
        if (!control || !w->isVisibleTo(&window) || isQtPart(w) || !w->toolTip().trimmed().isEmpty()) continue;
        const auto* button = qobject_cast<QAbstractButton*>(w);
        missing << QString("%1 '%2' (%3)")
                       .arg(w->metaObject()->className(), w->objectName(), button ? button->text() : QString());
    }
    return missing;
}

class Tooltips : public ::testing::TestWithParam<const char*> { };

TEST_P(Tooltips, EveryVisibleControlInEveryTabHasOne)
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    const QString folder = GetParam();
    bool found = false;
    for (const DemoModel& d : bundledDemoModels())
        if (d.path.endsWith("/" + folder)) {
            window.openDemo(d);
            found = true;
        }
    ASSERT_TRUE(found) << "no bundled demo " << GetParam();
    // Text and translation demos show attention; vision and caption demos enable their own tab.
    QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() || !window.tabs()->isTabEnabled(0), 60000);
    QTest::qWait(500);
    QTabWidget* tabs = window.tabs();
    for (int i = 0; i < tabs->count(); ++i) {
        if (!tabs->isTabEnabled(i)) continue;
        tabs->setCurrentIndex(i);
        QTest::qWait(100);
        const QStringList missing = controlsWithoutTooltip(window);
        EXPECT_TRUE(missing.isEmpty()) << tabs->tabText(i).toStdString() << ": " << missing.join(", ").toStdString();
    }
}

INSTANTIATE_TEST_SUITE_P(Demos, Tooltips,
    ::testing::Values("demo-stories-llama", "demo-translate-marian", "demo-vit-shapes", "demo-caption-scenes"),
    [](const ::testing::TestParamInfo<const char*>& p) {
        std::string name = p.param;
        for (char& c : name)
            if (c == '-') c = '_';
        return name;
    });

} // namespace
} // namespace attn::ui
