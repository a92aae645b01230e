// SPDX-License-Identifier: MIT
#include "atlas/cluster_matrix_view.h"

#include "atlas/role_colors.h"

#include <QPainter>

#include <algorithm>

namespace attn::ui {

namespace {
constexpr double kStrip = 8.0, kGap = 2.0; // the role strips and their gap to the matrix
} // namespace

QColor correlationColor(float r)
{
    const float t = std::clamp(r, -1.0f, 1.0f);
    const int fade = static_cast<int>(255.0f * (1.0f - std::abs(t)));
    return t >= 0.0f ? QColor(255, fade, fade) : QColor(fade, fade, 255);
}

ClusterMatrixView::ClusterMatrixView(QWidget* parent)
    : HeadMapView(parent)
{
    setObjectName("atlasClusterMatrix");
    setMinimumSize(180, 180);
    setToolTip(tr("Correlation of every pair of heads' signatures, heads in cluster order (blue -1, white 0, red +1); "
                  "each square on the diagonal between the lines is one cluster. Click to select the row's head"));
}

void ClusterMatrixView::setMap(HeadMapPtr map)
{
    if (!map) {
        m_image = m_roles = QImage();
        m_position.clear();
        return HeadMapView::setMap(nullptr);
    }
    const HeadClusters& c = map->clusters;
    const auto n = static_cast<int>(c.order.size());
    m_image = QImage(n, n, QImage::Format_RGB32);
    m_roles = QImage(n, 1, QImage::Format_RGB32);
    m_position.assign(c.order.size(), 0);
    for (int i = 0; i < n; ++i) {
        const int64_t a = c.order[static_cast<size_t>(i)];
        m_position[static_cast<size_t>(a)] = i;
        m_roles.setPixelColor(i, 0, roleColor(map->roles[static_cast<size_t>(a)]));
        auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(i));
        for (int j = 0; j < n; ++j)
            line[j] = correlationColor(c.similarity.data()[a * n + c.order[static_cast<size_t>(j)]]).rgb();
    }
    HeadMapView::setMap(std::move(map));
}

void ClusterMatrixView::resizeEvent(QResizeEvent* event)
{
    HeadMapView::resizeEvent(event);
    // No wider than the square it draws: beside it the role grid takes the rest of the row (a splitter's even halves
    // left ~200 px blank right of the matrix at 1280 px).
    setMaximumWidth(std::max(minimumWidth(), height()));
}

QRectF ClusterMatrixView::matrixRect() const
{
    const double side = std::max(1.0, std::min(width(), height()) - kStrip - kGap - 2.0);
    return QRectF(kStrip + kGap, kStrip + kGap, side, side);
}

int64_t ClusterMatrixView::headAt(const QPoint& at, int64_t* other) const
{
    *other = -1;
    const QRectF square = matrixRect();
    if (!m_map || !square.contains(at)) return -1;
    const auto n = static_cast<int64_t>(m_position.size());
    const auto place = [&](double offset, double side) {
        return std::clamp<int64_t>(static_cast<int64_t>(offset / side * static_cast<double>(n)), 0, n - 1);
    };
    *other = m_map->clusters.order[static_cast<size_t>(place(at.x() - square.left(), square.width()))];
    return m_map->clusters.order[static_cast<size_t>(place(at.y() - square.top(), square.height()))];
}

void ClusterMatrixView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (!m_map) return;
    const QRectF square = matrixRect();
    const auto n = static_cast<double>(m_position.size());
    p.drawImage(square, m_image); // nearest pixels: a scaled blit, whatever the number of heads
    p.drawImage(QRectF(square.left(), 0.0, square.width(), kStrip), m_roles);
    p.save();
    p.translate(0.0, square.top());
    p.rotate(90.0); // the same strip down the left side
    p.drawImage(QRectF(0.0, -kStrip, square.height(), kStrip), m_roles);
    p.restore();
    const double cell = square.width() / n;
    p.setPen(QPen(QColor(60, 60, 60), 1.0));
    const std::vector<int64_t>& order = m_map->clusters.order;
    const std::vector<int64_t>& cluster = m_map->clusters.cluster;
    for (size_t i = 1; i < order.size(); ++i)
        if (cluster[static_cast<size_t>(order[i])] != cluster[static_cast<size_t>(order[i - 1])]) {
            const double at = static_cast<double>(i) * cell;
            p.drawLine(QPointF(square.left() + at, square.top()), QPointF(square.left() + at, square.bottom()));
            p.drawLine(QPointF(square.left(), square.top() + at), QPointF(square.right(), square.top() + at));
        }
    if (m_highlight >= 0) {
        const double at = static_cast<double>(m_position[static_cast<size_t>(m_highlight)]) * cell;
        p.setPen(QPen(palette().text().color(), 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(square.left(), square.top() + at, square.width(), std::max(cell, 2.0)));
        p.drawRect(QRectF(square.left() + at, square.top(), std::max(cell, 2.0), square.height()));
    }
}

} // namespace attn::ui
