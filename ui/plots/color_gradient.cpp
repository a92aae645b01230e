// SPDX-License-Identifier: MIT
#include "plots/color_gradient.h"

namespace attn::ui {

QCPColorGradient colorGradient(Colormap map) {
    QCPColorGradient g;
    g.clearColorStops();
    for (const auto& [t, color] : colormapStops(map))
        g.setColorStopAt(t, color);
    g.setColorInterpolation(QCPColorGradient::ciRGB);
    g.setLevelCount(1000);
    g.setNanHandling(QCPColorGradient::nhNanColor);
    g.setNanColor(maskedCellColor(map));
    return g;
}

} // namespace attn::ui
