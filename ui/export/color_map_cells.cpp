// SPDX-License-Identifier: MIT
#include "export/color_map_cells.h"

#include <map>

namespace attn::ui {

ColorMapCells::ColorMapCells(QCPColorMap* map)
    : QCPLayerable(map->parentPlot(), map->layer()->name())
    , m_map(map) {
    setLayer(map->layer());
}

void ColorMapCells::applyDefaultAntialiasingHint(QCPPainter* painter) const {
    // Antialiased edges of touching rectangles show as hairline seams in viewers.
    painter->setAntialiasing(false);
}

QRect ColorMapCells::clipRect() const {
    return m_map->keyAxis()->axisRect()->rect();
}

void ColorMapCells::draw(QCPPainter* painter) {
    QCPColorMapData* data = m_map->data();
    const int cols = data->keySize(), rows = data->valueSize();
    if (cols == 0 || rows == 0) return;
    QCPAxis* keyAxis = m_map->keyAxis();
    QCPAxis* valueAxis = m_map->valueAxis();
    // Cell i is centred on its coordinate; a single cell spans one unit.
    const double keyStep = cols > 1 ? data->keyRange().size() / (cols - 1) : 1.0;
    const double valueStep = rows > 1 ? data->valueRange().size() / (rows - 1) : 1.0;
    QCPColorGradient gradient = m_map->gradient(); // color() is not const
    const QCPRange range = m_map->dataRange();
    const bool logarithmic = m_map->dataScaleType() == QCPAxis::stLogarithmic;
    // A tiny overlap hides seams between neighbours in antialiasing viewers; winding fill keeps overlaps solid.
    constexpr double kOverlap = 0.25;
    std::map<QRgb, QPainterPath> paths; // ordered: the output is the same on every run
    for (int r = 0; r < rows; ++r) {
        double key = 0, value = 0;
        data->cellToCoord(0, r, &key, &value);
        const double y0 = valueAxis->coordToPixel(value - valueStep / 2);
        const double y1 = valueAxis->coordToPixel(value + valueStep / 2);
        int start = 0;
        while (start < cols) {
            const QRgb color = gradient.color(data->cell(start, r), range, logarithmic);
            int end = start + 1;
            while (end < cols && gradient.color(data->cell(end, r), range, logarithmic) == color)
                ++end;
            double k0 = 0, k1 = 0;
            data->cellToCoord(start, r, &k0, &value);
            data->cellToCoord(end - 1, r, &k1, &value);
            const double x0 = keyAxis->coordToPixel(k0 - keyStep / 2);
            const double x1 = keyAxis->coordToPixel(k1 + keyStep / 2);
            QPainterPath& path = paths[color];
            path.setFillRule(Qt::WindingFill);
            path.addRect(QRectF(QPointF(std::min(x0, x1), std::min(y0, y1)), QPointF(std::max(x0, x1), std::max(y0, y1)))
                             .adjusted(0, 0, kOverlap, kOverlap));
            start = end;
        }
    }
    painter->setPen(Qt::NoPen);
    for (const auto& [color, path] : paths)
        painter->fillPath(path, QColor::fromRgba(color));
}

} // namespace attn::ui
