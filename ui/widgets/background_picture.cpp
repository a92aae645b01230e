// SPDX-License-Identifier: MIT
#include "widgets/background_picture.h"

#include <QBackingStore>
#include <QPainter>
#include <QWidget>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace attn::ui {

bool paintsToScreen(const QWidget& widget, const QPaintDevice* redirectedTo)
{
    // On screen a widget paints into its window's backing store; grab() and render() redirect it elsewhere.
    QBackingStore* store = widget.backingStore();
    return store && redirectedTo == store->paintDevice();
}

BackgroundPicture::BackgroundPicture(QObject* parent)
    : QObject(parent)
{
    m_pool.setMaxThreadCount(1);
    connect(&m_watcher, &QFutureWatcher<QImage>::finished, this, &BackgroundPicture::finished);
}

BackgroundPicture::~BackgroundPicture()
{
    ++*m_generation; // the drawing in progress stops at its next check; m_pool waits for it
}

bool BackgroundPicture::covers(PictureKey key, const QRectF& visible) const
{
    return m_key == key && !m_image.isNull() && m_area.contains(visible);
}

void BackgroundPicture::requestFor(const QRectF& visible, const QRectF& area, double dpr, PictureKey key, Draw draw)
{
    const bool drawing = m_watcher.isRunning() || m_pending;
    if (visible.isEmpty() || covers(key, visible) || (drawing && m_wantedKey == key && m_wantedArea.contains(visible)))
        return;
    request(area, dpr, key, std::move(draw));
}

void BackgroundPicture::request(const QRectF& area, double dpr, PictureKey key, Draw draw)
{
    m_wantedArea = area;
    m_wantedDpr = dpr;
    m_wantedKey = key;
    m_wantedDraw = std::move(draw);
    ++*m_generation;
    if (m_watcher.isRunning()) {
        m_pending = true;
        return;
    }
    startNext();
}

void BackgroundPicture::startNext()
{
    m_pending = false;
    const uint64_t mine = m_generation->load();
    m_watcher.setFuture(QtConcurrent::run(&m_pool,
        [area = m_wantedArea, dpr = m_wantedDpr, draw = m_wantedDraw, generation = m_generation, mine]() -> QImage {
            const QSize pixels(
                static_cast<int>(std::ceil(area.width() * dpr)), static_cast<int>(std::ceil(area.height() * dpr)));
            if (pixels.isEmpty()) return {};
            QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
            image.setDevicePixelRatio(dpr);
            image.fill(Qt::transparent);
            QPainter p(&image);
            p.translate(-area.topLeft());
            try {
                if (!draw(p, area, [&] { return generation->load() != mine; })) return {};
            } catch (const std::exception&) {
                return {}; // a snapshot read failed: no picture rather than a worker thread that throws
            }
            return image;
        }));
}

void BackgroundPicture::finished()
{
    if (m_pending) return startNext(); // what just finished was cancelled
    QImage image = m_watcher.result();
    if (image.isNull()) return;
    m_image = std::move(image);
    m_area = m_wantedArea;
    m_key = m_wantedKey;
    emit drawn();
}

} // namespace attn::ui
