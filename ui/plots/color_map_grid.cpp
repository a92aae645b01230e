// SPDX-License-Identifier: MIT
#include "plots/color_map_grid.h"

#include <qcustomplot.h>

namespace attn::ui {

namespace {

struct StoredAxis {
    int size;
    QCPRange range;
};

StoredAxis stored(const GridAxis& axis)
{
    if (axis.cells != 1) return { axis.cells, QCPRange(axis.firstCentre, axis.lastCentre) };
    // Two centres half a cell apart: each copy's half-extent is a quarter cell, together one cell.
    const double quarter = axis.cellWidth / 4;
    return { 2, QCPRange(axis.firstCentre - quarter, axis.firstCentre + quarter) };
}

}

void fillColorMapGrid(
    QCPColorMapData* data, const GridAxis& keys, const GridAxis& values, const std::function<double(int, int)>& value)
{
    const StoredAxis k = stored(keys), v = stored(values);
    data->setSize(k.size, v.size);
    data->setRange(k.range, v.range);
    for (int r = 0; r < v.size; ++r)
        for (int c = 0; c < k.size; ++c)
            data->setCell(c, r, value(keys.cells == 1 ? 0 : c, values.cells == 1 ? 0 : r));
}

}
