// SPDX-License-Identifier: MIT
#include "plots/heatmap_minimap.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace attn::ui {

HeatmapMinimap::HeatmapMinimap(QWidget* parent)
    : QWidget(parent)
{
    setObjectName("heatmapMinimap");
    setFixedSize(sizeHint());
    setToolTip(tr("The whole matrix; the frame is what the heatmap shows. Click to move there."));
}

void HeatmapMinimap::setImage(const QImage& image, int64_t numQueries, int64_t numKeys)
{
    m_image = image;
    m_numQueries = numQueries;
    m_numKeys = numKeys;
    update();
}

void HeatmapMinimap::setViewport(const QRectF& tokens)
{
    m_viewport = tokens;
    update();
}

void HeatmapMinimap::setMarks(std::vector<int64_t> positions, int current)
{
    m_marks = std::move(positions);
    m_current = current;
    update();
}

QRectF HeatmapMinimap::imageRect() const
{
    return QRectF(rect()).adjusted(2, 2, -2, -2);
}

void HeatmapMinimap::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (m_image.isNull() || m_numQueries <= 0 || m_numKeys <= 0) return;
    const QRectF area = imageRect();
    p.drawImage(area, m_image);
    const double sx = area.width() / static_cast<double>(m_numKeys),
                 sy = area.height() / static_cast<double>(m_numQueries);
    QRectF frame(area.left() + m_viewport.left() * sx, area.top() + m_viewport.top() * sy, m_viewport.width() * sx,
        m_viewport.height() * sy);
    frame = frame.intersected(area);
    p.setPen(QPen(Qt::red, 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(frame.width() < 3 || frame.height() < 3 ? frame.adjusted(-2, -2, 2, 2) : frame);
    // Found tokens: a tick on each edge where its key column and query row are.
    const QColor found(255, 140, 0);
    p.setPen(QPen(found, 1));
    for (const int64_t m : m_marks) {
        const double x = area.left() + (static_cast<double>(m) + 0.5) * sx;
        const double y = area.top() + (static_cast<double>(m) + 0.5) * sy;
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.top() + 6));
        if (m < m_numQueries) p.drawLine(QPointF(area.left(), y), QPointF(area.left() + 6, y));
    }
    if (m_current >= 0 && m_current < static_cast<int>(m_marks.size())) {
        const auto m = static_cast<double>(m_marks[static_cast<size_t>(m_current)]) + 0.5;
        p.setPen(QPen(found, 2));
        p.drawEllipse(
            QPointF(area.left() + m * sx, area.top() + std::min(m, static_cast<double>(m_numQueries)) * sy), 4, 4);
    }
}

void HeatmapMinimap::mousePressEvent(QMouseEvent* event)
{
    const QRectF area = imageRect();
    if (m_numQueries <= 0 || !area.contains(event->position())) return;
    const double fx = (event->position().x() - area.left()) / area.width();
    const double fy = (event->position().y() - area.top()) / area.height();
    emit jumpRequested(std::clamp<int64_t>(static_cast<int64_t>(fy * m_numQueries), 0, m_numQueries - 1),
        std::clamp<int64_t>(static_cast<int64_t>(fx * m_numKeys), 0, m_numKeys - 1));
}

} // namespace attn::ui
