// SPDX-License-Identifier: MIT
#include "plots/series_density.h"

#include <qcustomplot.h>

namespace attn::ui {

namespace {
// Points closer than this many pixels draw as a plain hairline.
constexpr double kDenseSpacing = 4.0;
} // namespace

void fitSeriesToDensity(QCPGraph& graph, const QColor& color, bool markers)
{
    const int pixels = graph.keyAxis()->axisRect()->width();
    const int points = graph.dataCount();
    // Not laid out yet (no width): styled as sparse until the next redraw knows better.
    const bool dense = pixels > 0 && points > 1 && static_cast<double>(pixels) / points < kDenseSpacing;
    QPen pen(color, dense ? 1.0 : 1.5);
    pen.setCosmetic(dense);
    graph.setPen(pen);
    graph.setScatterStyle(
        markers && !dense ? QCPScatterStyle(QCPScatterStyle::ssCircle, 3) : QCPScatterStyle(QCPScatterStyle::ssNone));
}

} // namespace attn::ui
