// SPDX-License-Identifier: MIT
#include "atlas/head_map_view.h"

#include <QMouseEvent>

namespace attn::ui {

HeadMapView::HeadMapView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
}

void HeadMapView::setMap(HeadMapPtr map)
{
    m_map = std::move(map);
    m_highlight = -1;
    update();
}

void HeadMapView::setHighlight(int64_t head)
{
    if (head == m_highlight) return;
    m_highlight = head;
    update(); // a frame over cached pixels: cheap at any number of heads
}

void HeadMapView::mouseMoveEvent(QMouseEvent* event)
{
    int64_t other = -1;
    const int64_t head = headAt(event->position().toPoint(), &other);
    emit headHovered(head, other);
}

void HeadMapView::mousePressEvent(QMouseEvent* event)
{
    int64_t other = -1;
    const int64_t head = headAt(event->position().toPoint(), &other);
    if (head < 0 || event->button() != Qt::LeftButton) return;
    const int64_t heads = m_map->atlas.heads();
    emit headActivated(head / heads, head % heads);
}

void HeadMapView::leaveEvent(QEvent* event)
{
    QWidget::leaveEvent(event);
    emit headHovered(-1, -1);
}

} // namespace attn::ui
