// SPDX-License-Identifier: MIT
#include "export/color_map_cells.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace attn::ui {

ColorMapCells::ColorMapCells(QCPColorMap* map)
    : QCPLayerable(map->parentPlot(), map->layer()->name())
    , m_map(map)
{
    setLayer(map->layer());
}

void ColorMapCells::applyDefaultAntialiasingHint(QCPPainter* painter) const
{
    // Antialiased edges of touching rectangles show as hairline seams in viewers.
    painter->setAntialiasing(false);
}

QRect ColorMapCells::clipRect() const
{
    return m_map->keyAxis()->axisRect()->rect();
}

void ColorMapCells::draw(QCPPainter* painter)
{
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
    std::map<QRgb, QPainterPath> paths; // ordered: the output is the same on every run
    std::map<QRgb, int> counts;
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
            if (!std::isnan(data->cell(start, r))) counts[color] += end - start; // masked cells are not data
            QPainterPath& path = paths[color];
            // Neighbours share exact edges: no overlap, which would paint a sliver of one colour over another.
            path.addRect(
                QRectF(QPointF(std::min(x0, x1), std::min(y0, y1)), QPointF(std::max(x0, x1), std::max(y0, y1))));
            start = end;
        }
    }
    painter->setPen(Qt::NoPen);
    // Antialiasing viewers let the background show through shared edges as hairlines; a backdrop in the most common
    // data colour makes those seams vanish where they are most frequent (overlapping the cells instead would paint
    // slivers of one colour over its neighbour).
    const auto common = std::max_element(
        counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    painter->setBrush(QColor::fromRgba(common != counts.end() ? common->first : paths.begin()->first));
    QRectF matrix;
    for (const auto& entry : paths)
        matrix = matrix.united(entry.second.boundingRect());
    painter->drawRect(matrix);
    for (const auto& [color, path] : paths)
        painter->fillPath(path, QColor::fromRgba(color));
}

} // namespace attn::ui
