// SPDX-License-Identifier: MIT
#pragma once
// A figure's rasters, drawn later on the writing thread. A QPicture serializes every image drawn on it as PNG, so
// recording a heatmap's colour map into the figure's picture PNG-encoded it on the GUI thread (a 512 x 512 map, or
// QCustomPlot's 3x buffer of it in SVG/PDF: 50-100 ms of a figure export) only for the worker to decode it again.
#include <QImage>
#include <QPaintDevice>
#include <QPainter>
#include <QRectF>
#include <QRegion>
#include <QSize>
#include <QTransform>

#include <memory>
#include <vector>

namespace attn::ui {

/// One image as it was drawn: where, through which transform and clip, with which render hints.
struct DeferredImage {
    QImage image;
    QRectF target;
    QRectF source;
    QTransform transform;
    bool clipped = false;
    QRegion clip; ///< in the coordinates of `transform` (what QPicture replays too)
    QPainter::RenderHints hints;
};

/// A paint device of a figure's logical size (96 dpi) that keeps the images and pixmaps drawn on it, unencoded, and
/// ignores everything else.
class ImageCapture : public QPaintDevice {
public:
    explicit ImageCapture(const QSize& logical);
    ~ImageCapture() override;
    QPaintEngine* paintEngine() const override;
    /// What was drawn so far, in drawing order.
    std::vector<DeferredImage> take();

protected:
    int metric(PaintDeviceMetric metric) const override;

private:
    class Engine;
    QSize m_size;
    std::unique_ptr<Engine> m_engine;
};

/// Draws `images` onto `painter` (any thread) as they were drawn on the capture, under the painter's own transform.
void drawDeferred(QPainter& painter, const std::vector<DeferredImage>& images);

} // namespace attn::ui
