// SPDX-License-Identifier: MIT
#include "plots/overview_image.h"

#include <algorithm>

namespace attn::ui {

QImage overviewImage(const OverviewLevel& level, Colormap map)
{
    QImage image(static_cast<int>(level.cols), static_cast<int>(level.rows), QImage::Format_RGB32);
    if (image.isNull()) return image;
    const float maxValue = std::max(1e-12f, *std::max_element(level.max.begin(), level.max.end()));
    const QRgb masked = maskedCellColor(map).rgb();
    for (int64_t r = 0; r < level.rows; ++r) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(static_cast<int>(r)));
        for (int64_t c = 0; c < level.cols; ++c) {
            const float v = level.maxAt(r, c);
            line[c] = v > 0 ? colormapColor(map, v / maxValue).rgb() : masked;
        }
    }
    return image;
}

} // namespace attn::ui
