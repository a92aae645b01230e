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
namespace {
/// The line edit's frame, text margins and clear button around its text (Sizes/Layout checks the placeholder fits).
constexpr int kBoxPadding = 36;
/// Room for this many more characters where the controls row has it.
constexpr int kExtraCharacters = 8;
} // namespace

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
    m_box->setPlaceholderText(tr("Find token (Ctrl+F)"));
    m_box->setClearButtonEnabled(true);
    m_box->setToolTip(tr("Find tokens by their text (Ctrl+F); Enter or F3 goes to the next, Shift+F3 to the previous"));
    // Never narrower than its placeholder, which names it, with the clear button beside (a 16 px minimum let the
    // Decode tab's full controls row squeeze it to a sliver at 1024 px); wider where the row has room, for a longer
    // token.
    const int placeholder = m_box->fontMetrics().horizontalAdvance(m_box->placeholderText()) + kBoxPadding;
    m_box->setMinimumWidth(placeholder);
    m_box->setMaximumWidth(placeholder + m_box->fontMetrics().horizontalAdvance(QLatin1Char('x')) * kExtraCharacters);
    m_box->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
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
        if (!m_box->isVisible()) return; // a panel that hides the view's controls
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

std::pair<int64_t, int64_t> HeatmapSearch::bands() const
{
    const int64_t key = m_match >= 0 ? m_matches[static_cast<size_t>(m_match)] : -1;
    return { m_row->visible() ? key : -1, m_column->visible() ? key : -1 };
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
    m_count->setVisible(!m_box->text().trimmed().isEmpty()); // no spacing for an empty count
    m_count->setText(m_box->text().trimmed().isEmpty() ? QString()
            : count == 0                               ? tr("no match")
            : m_match >= 0                             ? tr("%1 of %2").arg(m_match + 1).arg(count)
            : count == 1                               ? tr("1 match")
                                                       : tr("%1 matches").arg(count));
    m_minimap->setMarks(m_matches, m_match);
    m_plot->layer("linked")->replot();
}

} // namespace attn::ui
