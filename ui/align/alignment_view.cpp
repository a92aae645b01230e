// SPDX-License-Identifier: MIT
#include "align/alignment_view.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace attn::ui {
namespace {
constexpr double kPad = 8.0;
constexpr double kMaxCell = 72.0;
constexpr double kLegend = 28.0;
} // namespace

AlignmentView::AlignmentView(QWidget* parent)
    : QWidget(parent)
{
    setMinimumSize(240, 200);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void AlignmentView::setMatrix(Tensor matrix, std::vector<std::string> sourceWords, std::vector<std::string> targetWords)
{
    m_matrix = std::move(matrix);
    m_sourceWords = std::move(sourceWords);
    m_targetWords = std::move(targetWords);
    update();
}

void AlignmentView::setLinks(Links hard)
{
    m_links = std::move(hard);
    update();
}

void AlignmentView::setGold(std::optional<GoldAlignment> gold)
{
    m_gold = std::move(gold);
    update();
}

void AlignmentView::setNewestRow(int row)
{
    m_newestRow = row;
    update();
}

void AlignmentView::setColormap(Colormap map)
{
    m_colormap = map;
    update();
}

AlignmentView::Layout AlignmentView::layout() const
{
    Layout l;
    if (m_matrix.empty()) return l;
    const QFontMetricsF fm(font());
    double left = 0, top = 0;
    for (const std::string& w : m_targetWords)
        left = std::max(left, fm.horizontalAdvance(QString::fromStdString(w)));
    for (const std::string& w : m_sourceWords)
        top = std::max(top, fm.horizontalAdvance(QString::fromStdString(w)));
    l.left = left + 2 * kPad;
    l.top = top + 2 * kPad;
    const double rows = static_cast<double>(m_matrix.dim(0)), cols = static_cast<double>(m_matrix.dim(1));
    l.cell = std::min({ kMaxCell, (width() - l.left - kPad) / cols, (height() - l.top - kPad - kLegend) / rows });
    l.cell = std::max(l.cell, 2.0);
    return l;
}

QRectF AlignmentView::cellRect(int row, int column) const
{
    const Layout l = layout();
    return { l.left + column * l.cell, l.top + row * l.cell, l.cell, l.cell };
}

void AlignmentView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    if (m_matrix.empty()) {
        p.drawText(rect(), Qt::AlignCenter,
            m_sourceWords.empty() ? tr("Enter a source sentence, then Align, or Step to decode it token by token")
                                  : tr("No target token yet: Step or Run"));
        return;
    }
    const Layout l = layout();
    const int rows = static_cast<int>(m_matrix.dim(0)), cols = static_cast<int>(m_matrix.dim(1));
    // Source on top, read upwards from each column like the classic matplotlib figure (xticks rotation=90).
    for (int c = 0; c < cols && c < static_cast<int>(m_sourceWords.size()); ++c) {
        p.save();
        p.translate(l.left + (c + 0.5) * l.cell, l.top - kPad / 2);
        p.rotate(-90);
        p.drawText(QRectF(0, -l.cell / 2, l.top, l.cell), Qt::AlignLeft | Qt::AlignVCenter,
            QString::fromStdString(m_sourceWords[static_cast<size_t>(c)]));
        p.restore();
    }
    for (int r = 0; r < rows && r < static_cast<int>(m_targetWords.size()); ++r)
        p.drawText(QRectF(0, l.top + r * l.cell, l.left - kPad, l.cell), Qt::AlignRight | Qt::AlignVCenter,
            QString::fromStdString(m_targetWords[static_cast<size_t>(r)]));
    p.setPen(Qt::NoPen);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            p.setBrush(colormapColor(m_colormap, m_matrix.data()[r * cols + c]));
            p.drawRect(cellRect(r, c));
        }
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(palette().color(QPalette::Mid), 1));
    p.drawRect(QRectF(l.left, l.top, cols * l.cell, rows * l.cell));
    if (m_gold) {
        const double inset = std::max(1.5, l.cell * 0.08);
        for (const Link& link : m_gold->possible) {
            if (link.second >= rows || link.first >= cols) continue;
            const bool sure = m_gold->sure.count(link) > 0;
            p.setPen(QPen(QColor(230, 120, 0), sure ? 2.5 : 1.5, sure ? Qt::SolidLine : Qt::DashLine));
            p.drawRect(cellRect(static_cast<int>(link.second), static_cast<int>(link.first))
                           .adjusted(inset, inset, -inset, -inset));
        }
    }
    p.setPen(QPen(Qt::white, 1.5));
    p.setBrush(QColor(200, 20, 40));
    for (const Link& link : m_links) {
        if (link.second >= rows || link.first >= cols) continue;
        const QRectF cell = cellRect(static_cast<int>(link.second), static_cast<int>(link.first));
        const double radius = std::max(2.0, l.cell * 0.16);
        p.drawEllipse(cell.center(), radius, radius);
    }
    // Legend under the figure, so an exported figure explains itself.
    const double legendY = l.top + rows * l.cell + kLegend / 2;
    p.setPen(QPen(Qt::white, 1.5));
    p.setBrush(QColor(200, 20, 40));
    p.drawEllipse(QPointF(l.left + 6, legendY), 5, 5);
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(QColor(230, 120, 0), 2.5));
    p.drawRect(QRectF(l.left + 150, legendY - 6, 12, 12));
    p.setPen(QPen(QColor(230, 120, 0), 1.5, Qt::DashLine));
    p.drawRect(QRectF(l.left + 250, legendY - 6, 12, 12));
    p.setPen(palette().color(QPalette::Text));
    const QRectF text(0, legendY - 10, 140, 20);
    p.drawText(text.translated(l.left + 16, 0), Qt::AlignLeft | Qt::AlignVCenter, tr("hard alignment"));
    p.drawText(text.translated(l.left + 168, 0), Qt::AlignLeft | Qt::AlignVCenter, tr("gold sure"));
    p.drawText(text.translated(l.left + 268, 0), Qt::AlignLeft | Qt::AlignVCenter, tr("gold possible"));
    if (m_newestRow >= 0 && m_newestRow < rows) {
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(30, 110, 220), 2));
        p.drawRect(QRectF(l.left, l.top + m_newestRow * l.cell, cols * l.cell, l.cell));
    }
}

} // namespace attn::ui
