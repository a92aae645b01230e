// SPDX-License-Identifier: MIT
#include "atlas/role_grid_view.h"

#include "atlas/role_colors.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attn::ui {

namespace {
constexpr double kLabelWidth = 30.0, kLabelHeight = 16.0; // room for "L47" on the left and head numbers on top
constexpr double kMinLabelledCell = 12.0; // below this every n-th row or column is labelled
} // namespace

RoleGridView::RoleGridView(QWidget* parent)
    : HeadMapView(parent)
{
    setObjectName("atlasRoleGrid");
    setMinimumSize(200, 160);
    setToolTip(tr("Every head: rows are layers, columns heads; colour = role, number = cluster. Click a head to "
                  "select it in the other views"));
}

QRectF RoleGridView::gridRect() const
{
    return QRectF(kLabelWidth, kLabelHeight, width() - kLabelWidth - 2.0, height() - kLabelHeight - 2.0);
}

QRectF RoleGridView::cellRect(int64_t index) const
{
    const QRectF grid = gridRect();
    const int64_t heads = m_map->atlas.heads();
    const double w = grid.width() / static_cast<double>(heads),
                 h = grid.height() / static_cast<double>(m_map->atlas.layers());
    return QRectF(grid.left() + static_cast<double>(index % heads) * w,
        grid.top() + static_cast<double>(index / heads) * h, w, h);
}

int64_t RoleGridView::headAt(const QPoint& at, int64_t* other) const
{
    *other = -1;
    if (!m_map || !gridRect().contains(at)) return -1;
    const QRectF grid = gridRect();
    const int64_t layers = m_map->atlas.layers(), heads = m_map->atlas.heads();
    const auto l = static_cast<int64_t>((at.y() - grid.top()) / grid.height() * static_cast<double>(layers));
    const auto h = static_cast<int64_t>((at.x() - grid.left()) / grid.width() * static_cast<double>(heads));
    return std::clamp<int64_t>(l, 0, layers - 1) * heads + std::clamp<int64_t>(h, 0, heads - 1);
}

void RoleGridView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_map) return;
    const int64_t layers = m_map->atlas.layers(), heads = m_map->atlas.heads();
    const QRectF first = cellRect(0);
    const bool numbered = first.width() >= 18.0 && first.height() >= 14.0;
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1.5));
    p.setFont(small);
    for (int64_t i = 0; i < layers * heads; ++i) {
        const QRectF cell = cellRect(i).adjusted(0.0, 0.0, -1.0, -1.0); // a hairline gap between heads
        const QColor color = roleColor(m_map->roles[static_cast<size_t>(i)]);
        p.fillRect(cell, color);
        if (numbered) {
            p.setPen(color.lightness() > 150 ? Qt::black : Qt::white);
            p.drawText(cell, Qt::AlignCenter, QString::number(m_map->clusters.cluster[static_cast<size_t>(i)] + 1));
        }
    }
    p.setPen(palette().text().color());
    const auto every
        = [](double cell) { return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(kMinLabelledCell / cell))); };
    for (int64_t l = 0; l < layers; l += every(first.height())) {
        const QRectF cell = cellRect(l * heads);
        p.drawText(QRectF(0.0, cell.top(), kLabelWidth - 3.0, cell.height()), Qt::AlignRight | Qt::AlignVCenter,
            QStringLiteral("L%1").arg(l));
    }
    for (int64_t h = 0; h < heads; h += every(first.width() / 1.6)) { // numbers are wider than tall
        const QRectF cell = cellRect(h);
        p.drawText(
            QRectF(cell.left() - 10.0, 0.0, cell.width() + 20.0, kLabelHeight), Qt::AlignCenter, QString::number(h));
    }
    if (m_highlight >= 0) {
        p.setPen(QPen(palette().text().color(), 2.0));
        p.setBrush(Qt::NoBrush);
        p.drawRect(cellRect(m_highlight).adjusted(-1.0, -1.0, 0.0, 0.0));
    }
}

} // namespace attn::ui
