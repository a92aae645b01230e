// SPDX-License-Identifier: MIT
#pragma once
// Per-patch values drawn over the image: one colour per patch, blocky or smoothly interpolated.
#include "model/vision_model.h"
#include "plots/colormaps.h"

#include <QImage>
#include <QSize>

#include <vector>

namespace attn::ui {

struct OverlayStyle {
    Colormap colormap = Colormap::Viridis;
    double opacity = 0.6; ///< of the overlay over the image, 0..1
    bool smooth = false; ///< bilinear between patch centres instead of one flat block per patch
};

/// max |value|: the ends of the diverging map's signed scale.
float signedPatchScale(const std::vector<float>& values);

/// A grid.cols x grid.rows image, pixel (c, r) = patch (r, c) coloured by value / max(values) (all zero: the
/// colormap's low end), alpha = opacity. Under Colormap::Diverging values are signed differences: the colour is at
/// 0.5 + 0.5 * value / signedPatchScale(values), so 0 is the map's white middle (all zero: all white).
/// Throws Error when values does not hold one value per patch.
QImage patchColorImage(const std::vector<float>& values, PatchGrid grid, const OverlayStyle& style);

/// `base` scaled to `size` with the patch colours over it (blocky or smooth as the style says).
QImage patchOverlay(
    const QImage& base, const std::vector<float>& values, PatchGrid grid, const OverlayStyle& style, QSize size);

} // namespace attn::ui
