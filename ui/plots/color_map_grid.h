// SPDX-License-Identifier: MIT
#pragma once
// Filling a QCPColorMap so that a grid of one row or one column is drawn. QCustomPlot measures a cell's extent
// between neighbouring cell centres, so a dimension of a single cell gets zero extent and the map draws nothing
// (a translator's cross-attention on its start token alone, a one-layer model's statistics, a one-token router).
#include <functional>

class QCPColorMapData;

namespace attn::ui {

/// The centres of a dimension's first and last cells and the width of one cell, in axis coordinates.
struct GridAxis {
    int cells = 0;
    double firstCentre = 0;
    double lastCentre = 0;
    double cellWidth = 1;
};

/// Sizes `data` for keys × values cells and fills cell (k, v) with value(k, v). A dimension of one cell is stored as
/// two copies a quarter cell either side of its centre, which QCustomPlot draws as exactly the one cell. Reading
/// `data`'s cell (k, v) gives the grid's cell (k, v); a one-cell dimension's index 1 repeats its index 0.
void fillColorMapGrid(
    QCPColorMapData* data, const GridAxis& keys, const GridAxis& values, const std::function<double(int, int)>& value);

}
