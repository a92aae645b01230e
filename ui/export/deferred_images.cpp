// SPDX-License-Identifier: MIT
#include "export/deferred_images.h"

#include <QPaintEngine>
#include <QPixmap>

#include <climits>
#include <utility>

namespace attn::ui {

class ImageCapture::Engine : public QPaintEngine {
public:
    // Every feature, so that QPainter hands the images over as they are instead of emulating anything.
    Engine()
        : QPaintEngine(AllFeatures)
    {
    }
    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    Type type() const override { return User; }
    void updateState(const QPaintEngineState&) override { }
    void drawPixmap(const QRectF& target, const QPixmap& pixmap, const QRectF& source) override
    {
        keep(pixmap.toImage(), target, source);
    }
    void drawImage(const QRectF& target, const QImage& image, const QRectF& source, Qt::ImageConversionFlags) override
    {
        keep(image, target, source);
    }
    // Everything else is drawn by the recorded picture.
    void drawPath(const QPainterPath&) override { }
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override { }
    void drawPolygon(const QPoint*, int, PolygonDrawMode) override { }
    void drawLines(const QLineF*, int) override { }
    void drawLines(const QLine*, int) override { }
    void drawRects(const QRectF*, int) override { }
    void drawRects(const QRect*, int) override { }
    void drawPoints(const QPointF*, int) override { }
    void drawPoints(const QPoint*, int) override { }
    void drawEllipse(const QRectF&) override { }
    void drawEllipse(const QRect&) override { }
    void drawTextItem(const QPointF&, const QTextItem&) override { }
    void drawTiledPixmap(const QRectF&, const QPixmap&, const QPointF&) override { }

    std::vector<DeferredImage> images;

private:
    void keep(const QImage& image, const QRectF& target, const QRectF& source)
    {
        const QPainter* p = painter();
        images.push_back({ image, target, source, p->worldTransform(), p->hasClipping(),
            p->hasClipping() ? p->clipRegion() : QRegion(), p->renderHints() });
    }
};

ImageCapture::ImageCapture(const QSize& logical)
    : m_size(logical)
    , m_engine(std::make_unique<Engine>())
{
}

ImageCapture::~ImageCapture() = default;

QPaintEngine* ImageCapture::paintEngine() const
{
    return m_engine.get();
}

std::vector<DeferredImage> ImageCapture::take()
{
    return std::exchange(m_engine->images, {});
}

int ImageCapture::metric(PaintDeviceMetric metric) const
{
    constexpr int kDpi = 96; // logical pixels, as the figure's picture
    switch (metric) {
    case PdmWidth:
        return m_size.width();
    case PdmHeight:
        return m_size.height();
    case PdmWidthMM:
        return m_size.width() * 254 / (10 * kDpi);
    case PdmHeightMM:
        return m_size.height() * 254 / (10 * kDpi);
    case PdmNumColors:
        return INT_MAX;
    case PdmDepth:
        return 32;
    case PdmDpiX:
    case PdmDpiY:
    case PdmPhysicalDpiX:
    case PdmPhysicalDpiY:
        return kDpi;
    case PdmDevicePixelRatio:
        return 1;
    case PdmDevicePixelRatioScaled:
        return static_cast<int>(devicePixelRatioFScale());
    }
    return 0;
}

void drawDeferred(QPainter& painter, const std::vector<DeferredImage>& images)
{
    for (const DeferredImage& d : images) {
        painter.save();
        painter.setWorldTransform(d.transform, true);
        if (d.clipped) painter.setClipRegion(d.clip, Qt::IntersectClip);
        painter.setRenderHints(d.hints);
        painter.drawImage(d.target, d.image, d.source);
        painter.restore();
    }
}

} // namespace attn::ui
