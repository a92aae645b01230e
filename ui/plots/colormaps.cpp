// SPDX-License-Identifier: MIT
#include "plots/colormaps.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace attn::ui {

QVector<Colormap> allColormaps() {
    return { Colormap::Viridis, Colormap::Magma, Colormap::Grayscale, Colormap::Diverging };
}

QString colormapName(Colormap map) {
    switch (map) {
    case Colormap::Viridis:
        return QStringLiteral("viridis");
    case Colormap::Magma:
        return QStringLiteral("magma");
    case Colormap::Grayscale:
        return QStringLiteral("grayscale");
    case Colormap::Diverging:
        return QStringLiteral("diverging (blue-red)");
    }
    return {};
}

QVector<std::pair<double, QColor>> colormapStops(Colormap map) {
    // Viridis and magma sampled from matplotlib at ninths; enough stops that RGB interpolation stays close.
    switch (map) {
    case Colormap::Viridis:
        return { { 0.0, QColor(68, 1, 84) }, { 0.111, QColor(72, 36, 117) }, { 0.222, QColor(64, 67, 135) },
            { 0.333, QColor(52, 94, 141) }, { 0.444, QColor(41, 120, 142) }, { 0.556, QColor(32, 144, 140) },
            { 0.667, QColor(34, 167, 132) }, { 0.778, QColor(68, 190, 112) }, { 0.889, QColor(121, 209, 81) },
            { 1.0, QColor(253, 231, 37) } };
    case Colormap::Magma:
        return { { 0.0, QColor(0, 0, 4) }, { 0.111, QColor(24, 15, 62) }, { 0.222, QColor(69, 16, 121) },
            { 0.333, QColor(114, 31, 129) }, { 0.444, QColor(158, 47, 127) }, { 0.556, QColor(205, 64, 113) },
            { 0.667, QColor(241, 96, 93) }, { 0.778, QColor(253, 150, 104) }, { 0.889, QColor(254, 202, 141) },
            { 1.0, QColor(252, 253, 191) } };
    case Colormap::Grayscale:
        return { { 0.0, QColor(0, 0, 0) }, { 1.0, QColor(255, 255, 255) } };
    case Colormap::Diverging:
        return { { 0.0, QColor(33, 102, 172) }, { 0.25, QColor(146, 197, 222) }, { 0.5, QColor(247, 247, 247) },
            { 0.75, QColor(244, 165, 130) }, { 1.0, QColor(178, 24, 43) } };
    }
    return {};
}

QColor colormapColor(Colormap map, double t) {
    // Images colour every pixel through here (thumbnails, overviews, the decode strip): the stops are built once, not
    // allocated per pixel.
    static const std::array<QVector<std::pair<double, QColor>>, 4> allStops { colormapStops(Colormap::Viridis),
        colormapStops(Colormap::Magma), colormapStops(Colormap::Grayscale), colormapStops(Colormap::Diverging) };
    const auto& stops = allStops.at(static_cast<size_t>(map));
    t = std::isfinite(t) ? std::clamp(t, 0.0, 1.0) : 0.0;
    for (int i = 1; i < stops.size(); ++i) {
        if (t > stops[i].first) continue;
        const auto& [t0, c0] = stops[i - 1];
        const auto& [t1, c1] = stops[i];
        const double f = (t - t0) / (t1 - t0);
        const auto mix = [f](int a, int b) { return static_cast<int>(std::lround(a + f * (b - a))); };
        return QColor(mix(c0.red(), c1.red()), mix(c0.green(), c1.green()), mix(c0.blue(), c1.blue()));
    }
    return stops.back().second;
}

QColor maskedCellColor(Colormap map) {
    // A hue the map never produces, so "masked" never reads as "zero weight".
    switch (map) {
    case Colormap::Viridis:
    case Colormap::Magma:
        return QColor(200, 200, 200);
    case Colormap::Grayscale:
        return QColor(200, 70, 70);
    case Colormap::Diverging:
        return QColor(110, 110, 110);
    }
    return Qt::gray;
}

} // namespace attn::ui
