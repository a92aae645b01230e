// SPDX-License-Identifier: MIT
#pragma once
#include <QMenu>

class QMainWindow;
class QTabWidget;

namespace attn::ui {

/// The Help menu: "What am I looking at?" (F1) for the current tab, the keyboard-shortcut sheet and About. The
/// pages open in one non-modal window (object name "helpWindow"), so the view stays usable beside them.
class HelpMenu : public QMenu {
    Q_OBJECT
public:
    HelpMenu(QMainWindow* window, QTabWidget* tabs);

    /// Every shortcut the window answers, as an HTML table: its menu actions (by menu) and the panels' own keys
    /// (QShortcut objects that carry a whatsThis description). Built from the live objects, so it cannot go stale.
    static QString shortcutSheetHtml(const QMainWindow& window);
    /// Version, build, compute backends and the licences of the libraries the program links.
    static QString aboutHtml();
    /// The current tab's page (a generic note where a view has none).
    QString currentViewHtml() const;

private:
    void showPage(const QString& title, const QString& html);

    QMainWindow* m_window;
    QTabWidget* m_tabs;
};

} // namespace attn::ui
