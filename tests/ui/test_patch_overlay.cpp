// SPDX-License-Identifier: MIT
// Patch overlays under the diverging map are signed differences: 0 is the map's white middle and ±max |value| its
// ends, and the map view writes those ends on a scale bar under the image. The other maps keep value / max.
#include "plots/colormaps.h"
#include "vision/patch_map_view.h"
#include "vision/patch_overlay.h"

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

QColor opaque(QColor c)
{
    c.setAlpha(255);
    return c;
}

TEST(PatchOverlay, TheDivergingMapPutsZeroAtItsWhiteMiddleAndTheLargestMagnitudeAtItsEnds)
{
    const PatchGrid grid { 1, 4 };
    const OverlayStyle style { Colormap::Diverging, 1.0, false };
    const QImage image = patchColorImage({ -0.2f, 0.0f, 0.1f, 0.05f }, grid, style);
    EXPECT_EQ(opaque(image.pixelColor(0, 0)), colormapColor(Colormap::Diverging, 0.0));
    EXPECT_EQ(opaque(image.pixelColor(1, 0)), colormapColor(Colormap::Diverging, 0.5)) << "zero is white";
    EXPECT_EQ(opaque(image.pixelColor(2, 0)), colormapColor(Colormap::Diverging, 0.75));
    EXPECT_EQ(opaque(image.pixelColor(3, 0)), colormapColor(Colormap::Diverging, 0.625));
    const QImage zeros = patchColorImage({ 0.0f, 0.0f, 0.0f, 0.0f }, grid, style);
    EXPECT_EQ(opaque(zeros.pixelColor(2, 0)), colormapColor(Colormap::Diverging, 0.5)) << "no difference: white";
    // Unsigned maps unchanged: value / max.
    const QImage viridis = patchColorImage({ 0.0f, 0.5f, 1.0f, 2.0f }, grid, { Colormap::Viridis, 1.0, false });
    EXPECT_EQ(opaque(viridis.pixelColor(0, 0)), colormapColor(Colormap::Viridis, 0.0));
    EXPECT_EQ(opaque(viridis.pixelColor(2, 0)), colormapColor(Colormap::Viridis, 0.5));
}

TEST(PatchMapView, ASignedMapWritesItsScaleUnderTheImageAndLeavesItRoomThere)
{
    QImage image(8, 8, QImage::Format_RGB32);
    image.fill(Qt::gray);
    PatchMapView view;
    view.resize(200, 240);
    view.setContent(image, { 2, 2 }, { -0.25f, 0.0f, 0.125f, 0.0f }, "difference");
    EXPECT_TRUE(view.scaleLabels().isEmpty()) << "viridis has no signed scale";
    const QRect unsignedArea = view.imageRect();
    view.setStyle({ Colormap::Diverging, 0.6, false });
    EXPECT_EQ(view.scaleLabels(), (QStringList { QString::fromUtf8("\u22120.25"), "0", "+0.25" }));
    EXPECT_LT(view.imageRect().bottom(), view.height() - view.fontMetrics().height()) << "the bar lies under the image";
    EXPECT_LE(view.imageRect().height(), unsignedArea.height());
}

} // namespace
} // namespace attn::ui
