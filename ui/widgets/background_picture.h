// SPDX-License-Identifier: MIT
#pragma once
#include <QFutureWatcher>
#include <QImage>
#include <QObject>
#include <QRectF>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>

class QPaintDevice;
class QPainter;
class QWidget;

namespace attn::ui {

/// What a picture shows: `content` changes with the data (snapshot, layer, heads), `focus` with the hovered or
/// pinned token. A picture of other content is stale; one of another focus may stand in until the new one is ready.
struct PictureKey {
    uint64_t content = 0;
    uint64_t focus = 0;
    bool operator==(const PictureKey&) const = default;
};

/// False while `widget` paints for grab() or render() (a screenshot, an export): then a view draws its expensive
/// layer in place, complete, instead of showing the worker's picture. `redirectedTo`: the widget's (protected)
/// redirected(nullptr).
bool paintsToScreen(const QWidget& widget, const QPaintDevice* redirectedTo);

/// Draws a view's expensive layer (attention lines) on one worker thread into an image, so the GUI thread only blits
/// it: a newer request cancels the drawing in progress, and the last finished picture is kept with its area and key.
class BackgroundPicture : public QObject {
    Q_OBJECT
public:
    /// Draws `area` with the painter (already translated to it); returns false once `cancelled()` says so.
    using Draw = std::function<bool(QPainter& painter, const QRectF& area, const std::function<bool()>& cancelled)>;

    explicit BackgroundPicture(QObject* parent = nullptr);
    ~BackgroundPicture() override;

    /// Draws `area` (logical pixels) at `dpr` on the worker, superseding a drawing in progress, unless the picture of
    /// `key` covers `visible` or one that will is being drawn (so scrolling within the margin of the last drawing
    /// starts none).
    void requestFor(const QRectF& visible, const QRectF& area, double dpr, PictureKey key, Draw draw);
    /// The picture for `key` covers `visible`.
    bool covers(PictureKey key, const QRectF& visible) const;
    const QImage& image() const { return m_image; }
    QRectF area() const { return m_area; }
    PictureKey key() const { return m_key; }

signals:
    /// A new picture is ready (repaint).
    void drawn();

private:
    void request(const QRectF& area, double dpr, PictureKey key, Draw draw);
    void startNext();
    void finished();

    QThreadPool m_pool;
    QFutureWatcher<QImage> m_watcher;
    std::shared_ptr<std::atomic<uint64_t>> m_generation = std::make_shared<std::atomic<uint64_t>>(0);
    bool m_pending = false; ///< a newer request waits for the cancelled drawing to return
    QRectF m_wantedArea;
    double m_wantedDpr = 1.0;
    PictureKey m_wantedKey;
    Draw m_wantedDraw;
    QImage m_image;
    QRectF m_area;
    PictureKey m_key;
};

} // namespace attn::ui
