// SPDX-License-Identifier: MIT
#include "vision/patch_overlay.h"

#include "core/error.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attn::ui {

float signedPatchScale(const std::vector<float>& values)
{
    float scale = 0.0f;
    for (float v : values)
        scale = std::max(scale, std::abs(v));
    return scale;
}

QImage patchColorImage(const std::vector<float>& values, PatchGrid grid, const OverlayStyle& style)
{
    if (static_cast<int64_t>(values.size()) != grid.patches() || grid.patches() == 0)
        throw Error("patch overlay",
            "expected one value per patch of the " + std::to_string(grid.rows) + "x" + std::to_string(grid.cols)
                + " grid, got " + std::to_string(values.size()));
    // A difference under the diverging map is signed: 0 is the map's white middle and ±max |value| its two ends.
    const bool signedScale = style.colormap == Colormap::Diverging;
    const float maxValue = signedScale ? signedPatchScale(values) : *std::max_element(values.begin(), values.end());
    QImage out(static_cast<int>(grid.cols), static_cast<int>(grid.rows), QImage::Format_ARGB32);
    const int alpha = std::clamp(static_cast<int>(style.opacity * 255.0 + 0.5), 0, 255);
    for (int64_t r = 0; r < grid.rows; ++r)
        for (int64_t c = 0; c < grid.cols; ++c) {
            const float v = values[static_cast<size_t>(r * grid.cols + c)];
            const double t = maxValue > 0.0f ? v / maxValue : 0.0;
            QColor color = colormapColor(style.colormap, signedScale ? 0.5 + 0.5 * t : t);
            color.setAlpha(alpha);
            out.setPixelColor(static_cast<int>(c), static_cast<int>(r), color);
        }
    return out;
}

QImage patchOverlay(
    const QImage& base, const std::vector<float>& values, PatchGrid grid, const OverlayStyle& style, QSize size)
{
    QImage out = base.scaled(size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation)
                     .convertToFormat(QImage::Format_ARGB32_Premultiplied);
    // Smooth: a bilinear upscale puts each patch colour at its patch centre and blends in between.
    const QImage colors
        = patchColorImage(values, grid, style)
              .scaled(size, Qt::IgnoreAspectRatio, style.smooth ? Qt::SmoothTransformation : Qt::FastTransformation);
    QPainter painter(&out);
    painter.drawImage(0, 0, colors);
    return out;
}

} // namespace attn::ui
