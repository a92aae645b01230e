// SPDX-License-Identifier: MIT
#pragma once

class QCustomPlot;

namespace attn::ui {

/// Shows the plot's legend in one row above the axis rectangle instead of inside it, where it covered the curves
/// of small plots (the decode tab's KV cache and timeline).
void placeLegendAbove(QCustomPlot* plot);

} // namespace attn::ui
