// SPDX-License-Identifier: MIT
#include "widgets/head_grid_view.h"

#include "plots/overview_image.h"
#include "widgets/cell_grid.h"
#include "widgets/head_grid_keys.h"

#include <QContextMenuEvent>
#include <QFontMetrics>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>

#include <algorithm>

namespace attn::ui {

namespace {
// Room for "L12" at the left and "H12" and the KV band above; cells of 40 to 160 px.
constexpr CellGrid kGrid { .left = 40, .top = 34, .gap = 6, .minCell = 40, .maxCell = 160 };

// A head still being summarized on the engine thread: a grey cell until it is.
const QImage& pendingThumbnail()
{
    static const QImage pending = [] {
        QImage image(1, 1, QImage::Format_RGB32);
        image.fill(QColor(215, 215, 215));
        return image;
    }();
    return pending;
}
} // namespace

void HeadGridCells::paint(QPainter& painter, const QRect& exposed,
    const std::function<const QImage&(int64_t layer, int64_t head)>& thumbnail) const
{
    const QFontMetrics metrics(font);
    painter.setFont(font);
    for (int64_t l = 0; l < snapshot->numLayers(); ++l)
        for (int64_t h = 0; h < snapshot->numHeads(); ++h) {
            const QRect cell = kGrid.cellRect(this->cell, l, h);
            if (!exposed.intersects(cell)) continue;
            painter.drawImage(cell, thumbnail(l, h));
            // Role tags (previous-token, sink, broad) from the engine's head statistics; an ablated head's tag
            // says how it is changed instead, on red, with a red frame.
            const auto found = marks.find({ l, h });
            const QString marked = found == marks.end() ? QString() : found->second;
            const QString roles = !marked.isEmpty() ? HeadGridView::tr("ablated: %1").arg(marked)
                : snapshot->statsReady(l, h)
                ? QString::fromStdString(headRoleNames(classifyHead(snapshot->stats(l, h))))
                : HeadGridView::tr("computing…");
            if (!marked.isEmpty()) {
                painter.setPen(QPen(QColor(200, 30, 30), 2));
                painter.drawRect(cell.adjusted(1, 1, -1, -1));
            }
            if (!roles.isEmpty()) {
                // Wrapped onto a second line where a cell is narrower than the tag (at 1024 px "previous-token" read
                // "previous-tok…"), over at most the cell's lower half.
                const int flags = Qt::AlignCenter | Qt::TextWordWrap;
                const int lines = metrics.boundingRect(QRect(0, 0, cell.width(), cell.height()), flags, roles).height();
                const int height = std::min(lines + 1, cell.height() / 2);
                const QRect tag(cell.left(), cell.bottom() - height + 1, cell.width(), height);
                painter.fillRect(tag, marked.isEmpty() ? QColor(0, 0, 0, 150) : QColor(180, 20, 20, 210));
                painter.setPen(Qt::white);
                painter.drawText(tag, flags, roles);
            }
        }
    const QRect current = kGrid.cellRect(this->cell, layer, head).adjusted(-3, -3, 2, 2);
    painter.setPen(QPen(highlight, 3));
    painter.drawRect(current);
}

HeadGridView::HeadGridView(QWidget* parent)
    : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setObjectName("headGrid");
    setSizePolicy(gridSizePolicy());
}

void HeadGridView::setPlaceholder(const QString& text)
{
    m_placeholder = text;
    update();
}

void HeadGridView::setSnapshot(SnapshotPtr snapshot) {
    m_snapshot = std::move(snapshot);
    rebuildThumbnails();
}

void HeadGridView::setColormap(Colormap map) {
    if (map == m_colormap) return;
    m_colormap = map;
    rebuildThumbnails();
}

void HeadGridView::setCurrent(int64_t layer, int64_t head) {
    m_layer = layer;
    m_head = head;
    update();
}

void HeadGridView::setMarks(std::map<std::pair<int64_t, int64_t>, QString> marks) {
    m_marks = std::move(marks);
    update();
}

QString HeadGridView::mark(int64_t layer, int64_t head) const {
    const auto it = m_marks.find({ layer, head });
    return it == m_marks.end() ? QString() : it->second;
}

HeadGridCells HeadGridView::cells() const
{
    return { m_snapshot, m_colormap, m_marks, m_layer, m_head, cellSize(), font(), palette().highlight().color() };
}

// Thumbnails read the finest overview level of at most 64 x 64 cells (the whole matrix for short inputs): no
// thumbnail ever needs a head's full matrix.
QImage HeadGridView::renderThumbnail(const AttentionSnapshot& s, int64_t layer, int64_t head, Colormap map)
{
    if (!s.statsReady(layer, head)) return pendingThumbnail();
    return overviewImage(s.overview(layer, head, AttentionSource::kThumbnailSide)->levels.front(), map);
}

void HeadGridView::rebuildThumbnails() {
    // Built when first drawn, not here: a run's result reaches the grid while another tab is in front, and building
    // all 144 of a 12 x 12 model at once held the event loop.
    m_thumbnails.assign(m_snapshot ? static_cast<size_t>(m_snapshot->numLayers() * m_snapshot->numHeads()) : 0, {});
    updateGeometry();
    update();
}

const QImage& HeadGridView::thumbnail(int64_t layer, int64_t head) const {
    QImage& image = m_thumbnails.at(static_cast<size_t>(layer * m_snapshot->numHeads() + head));
    if (!image.isNull()) return image;
    if (!m_snapshot->statsReady(layer, head)) return pendingThumbnail(); // not kept: drawn again once it is ready
    image = renderThumbnail(*m_snapshot, layer, head, m_colormap);
    return image;
}

int HeadGridView::cellSize() const {
    // Fill the width when there is room, never below a readable 40 px.
    return m_snapshot ? kGrid.cellFor(width(), m_snapshot->numHeads()) : 64;
}

QRect HeadGridView::thumbnailRect(int64_t layer, int64_t head) const {
    const int c = cellSize();
    return kGrid.cellRect(c, layer, head);
}

QSize HeadGridView::sizeHint() const {
    return m_snapshot ? kGrid.size(cellSize(), m_snapshot->numLayers(), m_snapshot->numHeads()) : QSize(400, 300);
}

int HeadGridView::heightForWidth(int width) const {
    return m_snapshot ? kGrid.size(kGrid.cellFor(width, m_snapshot->numHeads()), m_snapshot->numLayers(), 0).height()
                      : -1;
}

void HeadGridView::paintEvent(QPaintEvent* event) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    if (!m_snapshot) {
        painter.drawText(rect(), Qt::AlignCenter, m_placeholder);
        return;
    }
    const int64_t layers = m_snapshot->numLayers(), heads = m_snapshot->numHeads();
    const int64_t groups = m_snapshot->numKvHeads();
    const bool grouped = groups != heads;
    for (int64_t h = 0; h < heads; ++h) {
        const QRect r = thumbnailRect(0, h);
        painter.setPen(palette().text().color());
        painter.drawText(QRect(r.left(), 0, r.width(), 16), Qt::AlignCenter, tr("H%1").arg(h));
        if (grouped) {
            // Alternate two band colours per KV group; the band spans the group's query heads.
            const int64_t g = m_snapshot->kvHeadOf(h);
            const QColor band = g % 2 == 0 ? QColor(90, 140, 220) : QColor(230, 150, 60);
            const QRect bandRect(r.left() - kGrid.gap / 2, 18, r.width() + kGrid.gap, 12);
            painter.fillRect(bandRect, band);
            painter.setPen(Qt::white);
            painter.drawText(bandRect, Qt::AlignCenter, tr("kv%1").arg(g));
        }
    }
    for (int64_t l = 0; l < layers; ++l) {
        const QRect r = thumbnailRect(l, 0);
        painter.setPen(palette().text().color());
        painter.drawText(
            QRect(0, r.top(), kGrid.left - 4, r.height()), Qt::AlignRight | Qt::AlignVCenter, tr("L%1").arg(l));
    }
    if (!m_cellsDeferred)
        cells().paint(
            painter, event->rect(), [this](int64_t l, int64_t h) -> const QImage& { return thumbnail(l, h); });
}

std::pair<int64_t, int64_t> HeadGridView::headAt(const QPoint& pos) const {
    if (m_snapshot)
        for (int64_t l = 0; l < m_snapshot->numLayers(); ++l)
            for (int64_t h = 0; h < m_snapshot->numHeads(); ++h)
                if (thumbnailRect(l, h).contains(pos)) return { l, h };
    return { -1, -1 };
}

void HeadGridView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return; // the right button opens the head's menu (contextMenuEvent)
    const auto [l, h] = headAt(event->pos());
    if (l < 0) return;
    setCurrent(l, h);
    emit headActivated(l, h);
}

void HeadGridView::contextMenuEvent(QContextMenuEvent* event) {
    // The menu key asks for the current head's menu; a right click for the head under the mouse.
    const auto [l, h] = event->reason() == QContextMenuEvent::Keyboard ? std::pair(m_layer, m_head) : headAt(event->pos());
    if (!m_snapshot || l < 0) return;
    setCurrent(l, h);
    emit headMenuRequested(l, h, event->reason() == QContextMenuEvent::Keyboard
            ? mapToGlobal(thumbnailRect(l, h).center())
            : event->globalPos());
}

void HeadGridView::keyPressEvent(QKeyEvent* event) {
    if (!m_snapshot
        || !handleGridKey(
            *event, m_snapshot->numLayers(), m_snapshot->numHeads(), m_layer, m_head,
            [this](int64_t l, int64_t h) { setCurrent(l, h); }, [this] { emit headActivated(m_layer, m_head); }))
        QWidget::keyPressEvent(event);
}

} // namespace attn::ui
