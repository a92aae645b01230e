// SPDX-License-Identifier: MIT
#include "help/help_menu.h"

#include "help/view_help.h"

#include <QDialog>
#include <QMainWindow>
#include <QMenuBar>
#include <QShortcut>
#include <QSysInfo>
#include <QTabWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace attn::ui {
namespace {

QString plainTitle(QString text)
{
    text.remove('&');
    text.remove(QString::fromUtf8("…"));
    return text.trimmed();
}

QString row(const QString& what, const QKeySequence& key)
{
    return QStringLiteral("<tr><td>%1</td><td><b>%2</b></td></tr>")
        .arg(what.toHtmlEscaped(), key.toString(QKeySequence::NativeText).toHtmlEscaped());
}

void addMenuRows(const QMenu& menu, const QString& path, QString* html)
{
    for (const QAction* a : menu.actions()) {
        if (a->menu()) addMenuRows(*a->menu(), path + " > " + plainTitle(a->text()), html);
        else if (!a->shortcut().isEmpty()) *html += row(path + " > " + plainTitle(a->text()), a->shortcut());
    }
}

} // namespace

HelpMenu::HelpMenu(QMainWindow* window, QTabWidget* tabs)
    : QMenu(tr("&Help"), window)
    , m_window(window)
    , m_tabs(tabs)
{
    setObjectName("menuHelp");
    addAction(tr("&What am I looking at?"), QKeySequence::HelpContents, this,
        [this] { showPage(tr("About this view"), currentViewHtml()); })
        ->setObjectName("actionViewHelp");
    addAction(tr("&Keyboard shortcuts"), QKeySequence(Qt::CTRL | Qt::Key_F1), this,
        [this] { showPage(tr("Keyboard shortcuts"), shortcutSheetHtml(*m_window)); })
        ->setObjectName("actionShortcuts");
    addSeparator();
    addAction(tr("&About AttnScope"), this, [this] { showPage(tr("About AttnScope"), aboutHtml()); })
        ->setObjectName("actionAbout");
}

QString HelpMenu::currentViewHtml() const
{
    const QString view = plainTitle(m_tabs->tabText(m_tabs->currentIndex()));
    const QString page = viewHelpHtml(view);
    if (!page.isEmpty()) return page;
    return tr("<h3>%1</h3><p>This view has no page yet; the README describes every view.</p>").arg(view.toHtmlEscaped());
}

QString HelpMenu::shortcutSheetHtml(const QMainWindow& window)
{
    QString html = tr("<h3>Keyboard shortcuts</h3><table cellspacing='0' cellpadding='3'>");
    for (const QAction* a : window.menuBar()->actions())
        if (a->menu()) addMenuRows(*a->menu(), plainTitle(a->text()), &html);
    for (const QShortcut* s : window.findChildren<QShortcut*>())
        if (!s->whatsThis().isEmpty()) html += row(s->whatsThis(), s->key());
    html += tr("</table><p>In plots: the mouse wheel zooms, dragging pans, hovering shows values.</p>");
    return html;
}

QString HelpMenu::aboutHtml()
{
    const QString backends =
#ifdef AS_HAVE_VULKAN
        tr("CPU (Eigen + OpenBLAS, the reference) and Vulkan compute (View > Compute backend)");
#else
        tr("CPU (Eigen + OpenBLAS); this build has no Vulkan backend");
#endif
    return tr("<h3>AttnScope %1</h3><p>See, step through and test what every attention head of a transformer or "
              "RNN seq2seq model does.</p>"
              "<p><b>Build</b>: %2, %3, Qt %4 (running on Qt %5), %6<br><b>Compute backends</b>: %7</p>"
              "<p><b>Libraries and their licences</b>: Qt 6 (LGPL-3.0), QCustomPlot 2.1 (GPL-3.0), Eigen 3 (MPL-2.0), "
              "OpenBLAS (BSD-3-Clause), nlohmann/json (MIT), SentencePiece (Apache-2.0), Vulkan loader "
              "(Apache-2.0). AttnScope's own code is MIT-licensed; a binary that links QCustomPlot is distributed "
              "under the GPL-3.0.</p>")
        .arg(QStringLiteral(AS_VERSION), QStringLiteral(AS_BUILD_TYPE),
#if defined(__clang__)
            QStringLiteral("clang " __clang_version__),
#else
            QStringLiteral("g++ " __VERSION__),
#endif
            QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()), QSysInfo::prettyProductName(), backends);
}

void HelpMenu::showPage(const QString& title, const QString& html)
{
    auto* dialog = m_window->findChild<QDialog*>("helpWindow");
    if (!dialog) {
        dialog = new QDialog(m_window);
        dialog->setObjectName("helpWindow");
        dialog->resize(600, 500);
        auto* layout = new QVBoxLayout(dialog);
        auto* browser = new QTextBrowser;
        browser->setObjectName("helpText");
        browser->setOpenExternalLinks(true);
        layout->addWidget(browser);
    }
    dialog->setWindowTitle(title);
    dialog->findChild<QTextBrowser*>("helpText")->setHtml(html);
    dialog->show();
    dialog->raise();
}

} // namespace attn::ui
