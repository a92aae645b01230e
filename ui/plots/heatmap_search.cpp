// SPDX-License-Identifier: MIT
#include "plots/heatmap_search.h"

#include "plots/heatmap_minimap.h"
#include "plots/heatmap_view.h"

#include <qcustomplot.h>

#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>

namespace attn::ui {
std::vector<int64_t> tokenMatches(const std::vector<TokenChip>& tokens, const QString& needle)
{
    const QString wanted = needle.trimmed();
    std::vector<int64_t> out;
    if (wanted.isEmpty()) return out;
    for (size_t i = 0; i < tokens.size(); ++i)
        if (QString::fromStdString(tokens[i].text).contains(wanted, Qt::CaseInsensitive))
            out.push_back(static_cast<int64_t>(i));
    return out;
}

HeatmapSearch::HeatmapSearch(
    HeatmapView* view, QCustomPlot* plot, HeatmapMinimap* minimap, std::function<void(double, double)> goTo)
    : QObject(view)
    , m_view(view)
    , m_plot(plot)
    , m_minimap(minimap)
    , m_goTo(std::move(goTo))
{
    m_box = new QLineEdit(view);
    m_box->setObjectName("heatmapFind");
    m_box->setPlaceholderText(tr("Ctrl+F"));
    m_box->setClearButtonEnabled(true);
    m_box->setToolTip(tr("Find tokens by their text (Ctrl+F); Enter or F3 goes to the next, Shift+F3 to the previous"));
    m_box->setMaximumWidth(minimap->sizeHint().width());
    m_count = new QLabel(view);
    m_count->setObjectName("heatmapFindCount");
    // On the linked-hover bands' buffered layer: moving them repaints that layer alone.
    for (QCPItemRect** band : { &m_row, &m_column }) {
        *band = new QCPItemRect(plot);
        (*band)->setLayer("linked");
        (*band)->setPen(QPen(QColor(255, 140, 0), 1.5));
        (*band)->setBrush(QColor(255, 140, 0, 50));
        (*band)->setVisible(false);
    }
    connect(m_box, &QLineEdit::textChanged, this, [this] { search(true); });
    connect(m_box, &QLineEdit::returnPressed, this, [this] { next(1); });
    const auto shortcut = [this, view](const QKeySequence& keys, auto slot) {
        connect(new QShortcut(keys, view, nullptr, nullptr, Qt::WidgetWithChildrenShortcut), &QShortcut::activated,
            this, slot);
    };
    shortcut(QKeySequence::Find, [this] {
        if (!m_box->isVisible()) return; // a short input has no side panel
        m_box->setFocus(Qt::ShortcutFocusReason);
        m_box->selectAll();
    });
    shortcut(QKeySequence(Qt::Key_F3), [this] { next(1); });
    shortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] { next(-1); });
}

void HeatmapSearch::search(bool go)
{
    const SnapshotPtr& snapshot = m_view->snapshot();
    m_searched = snapshot.get();
    m_matches = snapshot ? tokenMatches(snapshot->tokens(), m_box->text()) : std::vector<int64_t> {};
    m_match = -1;
    if (go && !m_matches.empty())
        next(1);
    else
        show();
}

void HeatmapSearch::next(int step)
{
    if (m_searched != m_view->snapshot().get()) search(false); // another input since: its own matches
    if (m_matches.empty()) return;
    const int count = static_cast<int>(m_matches.size());
    m_match = m_match < 0 ? (step > 0 ? 0 : count - 1) : ((m_match + step) % count + count) % count;
    const int64_t key = m_matches[static_cast<size_t>(m_match)];
    // A cross-attention's source token may lie past the last query: the rows shown stay then.
    const double row
        = key < m_view->snapshot()->numQueries() ? static_cast<double>(key) : m_plot->yAxis->range().center();
    show();
    m_goTo(row, static_cast<double>(key));
}

void HeatmapSearch::show()
{
    const SnapshotPtr& snapshot = m_view->snapshot();
    const bool found = m_match >= 0 && snapshot;
    const int64_t key = found ? m_matches[static_cast<size_t>(m_match)] : -1;
    if (found) {
        const auto at = static_cast<double>(key);
        m_column->topLeft->setCoords(at - 0.5, -0.5);
        m_column->bottomRight->setCoords(at + 0.5, static_cast<double>(snapshot->numQueries()) - 0.5);
        m_row->topLeft->setCoords(-0.5, at - 0.5);
        m_row->bottomRight->setCoords(static_cast<double>(snapshot->numKeys()) - 0.5, at + 0.5);
    }
    m_column->setVisible(found);
    m_row->setVisible(found && key < snapshot->numQueries());
    const int count = static_cast<int>(m_matches.size());
    m_count->setText(m_box->text().trimmed().isEmpty() ? QString()
            : count == 0                               ? tr("no match")
                                                       : tr("%1 of %2").arg(std::max(m_match, 0) + 1).arg(count));
    m_minimap->setMarks(m_matches, m_match);
    m_plot->layer("linked")->replot();
}

} // namespace attn::ui
