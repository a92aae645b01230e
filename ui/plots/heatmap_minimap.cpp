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
