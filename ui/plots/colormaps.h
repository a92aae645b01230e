// SPDX-License-Identifier: MIT
#pragma once
#include <QColor>
#include <QString>
#include <QVector>

#include <utility>

namespace attn::ui {

/// Colour maps of the attention views. Diverging is for signed differences (blue < 0 < red).
enum class Colormap { Viridis, Magma, Grayscale, Diverging };

QVector<Colormap> allColormaps();
QString colormapName(Colormap map);

/// Colour stops at positions 0..1, interpolated linearly in RGB (what QCPColorGradient's ciRGB does).
QVector<std::pair<double, QColor>> colormapStops(Colormap map);

/// The colour at t in [0, 1] (clamped); the same interpolation as the heatmap's gradient.
QColor colormapColor(Colormap map, double t);

/// The colour of masked cells under `map`: one the map itself never produces.
QColor maskedCellColor(Colormap map);

} // namespace attn::ui
