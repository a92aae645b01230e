// SPDX-License-Identifier: MIT
#pragma once
// Only for .cpp files that already include qcustomplot.h (it is too heavy for widely included headers).
#include "plots/colormaps.h"

#include <qcustomplot.h>

namespace attn::ui {

/// `map` as a QCustomPlot gradient (RGB interpolation, fine levels), NaN cells in maskedCellColor(map).
QCPColorGradient colorGradient(Colormap map);

} // namespace attn::ui
