// SPDX-License-Identifier: MIT
// Help: F1 shows the current tab's page, every tab has one, the shortcut sheet lists the menus' and the panels' keys
// from the live objects, and About names the version, Qt and the libraries' licences.
#include "help/help_menu.h"
#include "help/view_help.h"
#include "main_window.h"

#include <QAction>
#include <QDialog>
#include <QTabWidget>
#include <QTextBrowser>

#include <gtest/gtest.h>

#include <cstdlib>

namespace attn::ui {
namespace {

HelpMenu* helpMenu(MainWindow& window)
{
    return window.findChild<HelpMenu*>("menuHelp");
}

TEST(HelpMenu, EveryTabHasItsOwnPage)
{
    MainWindow window;
    QTabWidget* tabs = window.tabs();
    QStringList seen;
    for (int i = 0; i < tabs->count(); ++i) {
        QString title = tabs->tabText(i);
        title.remove('&');
        const QString page = viewHelpHtml(title);
        EXPECT_TRUE(page.contains("<h3>" + title + "</h3>")) << title.toStdString() << " has no page";
        EXPECT_FALSE(seen.contains(page)) << title.toStdString() << " repeats another tab's page";
        seen << page;
    }
}

TEST(HelpMenu, F1ShowsTheCurrentTabsPage)
{
    MainWindow window;
    ASSERT_NE(helpMenu(window), nullptr);
    auto* f1 = helpMenu(window)->findChild<QAction*>("actionViewHelp");
    ASSERT_NE(f1, nullptr);
    EXPECT_EQ(f1->shortcut(), QKeySequence(Qt::Key_F1));
    for (const char* tab : { "Statistics", "Decode" }) {
        for (int i = 0; i < window.tabs()->count(); ++i)
            if (window.tabs()->tabText(i).remove('&') == tab) window.tabs()->setCurrentIndex(i);
        f1->trigger();
        auto* dialog = window.findChild<QDialog*>("helpWindow");
        ASSERT_NE(dialog, nullptr);
        EXPECT_TRUE(dialog->isVisible());
        const QString text = dialog->findChild<QTextBrowser*>("helpText")->toPlainText();
        EXPECT_TRUE(text.startsWith(tab)) << text.left(80).toStdString();
        if (const char* dir = std::getenv("AS_HELP_SCREENSHOTS")) // for a person to look at
            dialog->grab().save(QString("%1/help-%2.png").arg(dir, tab));
    }
}

TEST(HelpMenu, ShortcutSheetListsMenuAndPanelKeys)
{
    MainWindow window;
    const QString sheet = HelpMenu::shortcutSheetHtml(window);
    for (const char* entry : { "View &gt; Next head", "Run &gt; Cancel", "File &gt; Open model folder",
             "Help &gt; What am I looking at?", "Decode &gt; Step", "Decode &gt; Run / Pause" })
        EXPECT_TRUE(sheet.contains(entry)) << entry;
    EXPECT_TRUE(sheet.contains("<b>]</b>")) << "the next-head key";
    EXPECT_TRUE(sheet.contains("<b>Space</b>")) << "the decode run key";
}

TEST(HelpMenu, AboutNamesVersionQtAndLicences)
{
    const QString about = HelpMenu::aboutHtml();
    EXPECT_TRUE(about.contains(QStringLiteral(AS_TEST_VERSION)));
    EXPECT_TRUE(about.contains(QString::fromLatin1(qVersion())));
    for (const char* licence : { "QCustomPlot 2.1 (GPL-3.0)", "Eigen 3 (MPL-2.0)", "OpenBLAS (BSD-3-Clause)" })
        EXPECT_TRUE(about.contains(licence)) << licence;
}

} // namespace
} // namespace attn::ui
