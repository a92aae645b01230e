// SPDX-License-Identifier: MIT
#include "widgets/model_view.h"

#include "core/tensor.h"
#include "widgets/attention_lines.h"
#include "widgets/cell_grid.h"
#include "widgets/head_grid_keys.h"
#include "widgets/head_lines_view.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>

#include <algorithm>

namespace attn::ui {

namespace {
// Room for "L12" at the left and "H12" above; cells of 48 to 110 px.
constexpr CellGrid kGrid { .left = 40, .top = 20, .gap = 6, .minCell = 48, .maxCell = 110 };
constexpr int kInset = 4; // between a cell's edge and its token columns

/// One head's matrix as a cell draws it: the snapshot's rows when the shared token range has at most kMaxRows
/// tokens per side, else the block means of the finest overview level with at most kMaxRows blocks of the range per
/// side (means: a line shows the mass between two blocks, where a block's maximum would be its diagonal in nearly
/// every row). `window` is the range in the matrix's rows and columns.
struct CellMatrix {
    int64_t rows = 0, cols = 0, block = 1;
    LinesRowsFn read;
    TokenRange window;
    int64_t shown(bool keys) const
    {
        const auto [begin, end] = window.span(keys, keys ? cols : rows);
        return end - begin;
    }
};

CellMatrix cellMatrix(const SnapshotPtr& s, int64_t layer, int64_t head, const TokenRange& range)
{
    const auto [q0, q1] = range.span(false, s->numQueries());
    const auto [k0, k1] = range.span(true, s->numKeys());
    if (q1 - q0 <= ModelView::kMaxRows && k1 - k0 <= ModelView::kMaxRows)
        return { s->numQueries(), s->numKeys(), 1,
            [s, layer, head](int64_t a, int64_t b) { return s->rows(layer, head, a, b); }, { q0, q1, k0, k1 } };
    const auto blocks
        = [](int64_t begin, int64_t end, int64_t block) { return (end + block - 1) / block - begin / block; };
    const auto overview = s->overview(layer, head, AttentionSource::kThumbnailSide);
    const OverviewLevel* level = &overview->levels.back();
    for (const OverviewLevel& l : overview->levels)
        if (blocks(q0, q1, l.block) <= ModelView::kMaxRows && blocks(k0, k1, l.block) <= ModelView::kMaxRows) {
            level = &l;
            break;
        }
    const int64_t b = level->block;
    return { level->rows, level->cols, b,
        [overview, level](int64_t a, int64_t e) {
            const auto begin = level->mean.begin() + a * level->cols, end = level->mean.begin() + e * level->cols;
            return std::make_shared<const Tensor>(Shape { e - a, level->cols }, std::vector<float>(begin, end));
        },
        { q0 / b, std::min(level->rows, (q1 + b - 1) / b), k0 / b, std::min(level->cols, (k1 + b - 1) / b) } };
}

/// Every cell's lines that fall in `area`; with a hovered token only that token's lines.
bool drawModelLines(QPainter& p, const QRectF& area, const std::function<bool()>& cancelled, const SnapshotPtr& s,
    int size, LinkedTokens hovered, const TokenRange& range)
{
    for (int64_t l = 0; l < s->numLayers(); ++l)
        for (int64_t h = 0; h < s->numHeads(); ++h) {
            const QRectF cell = kGrid.cellRect(size, l, h);
            if (!area.intersects(cell)) continue;
            if (cancelled()) return false;
            const CellMatrix m = cellMatrix(s, l, h, range);
            LinesRequest r;
            r.numQueries = m.rows;
            r.numKeys = m.cols;
            r.window = m.window;
            r.matrices.push_back({ m.read, HeadLinesView::headColor(h) });
            r.focus = hovered.query >= 0 ? LinesFocus { hovered.query / m.block, -1 }
                : hovered.key >= 0       ? LinesFocus { -1, hovered.key / m.block }
                                         : LinesFocus {};
            const double span = cell.height() - 2 * kInset;
            r.layout = { cell.left() + kInset, cell.right() - kInset, cell.top() + kInset,
                span / static_cast<double>(m.shown(false)), span / static_cast<double>(m.shown(true)) };
            r.area = cell.intersected(area);
            r.minRelative = 0.15; // a thumbnail shows where each row looks, not its faint tail
            r.alpha = 0.6;
            r.maxExtraWidth = 1.5;
            if (!drawAttentionLines(p, r, cancelled)) return false;
        }
    return true;
}
} // namespace

ModelView::ModelView(QWidget* parent)
    : QWidget(parent)
    , m_link(new TokenLink(this))
    , m_picture(new BackgroundPicture(this))
{
    setObjectName("modelView");
    setSizePolicy(gridSizePolicy());
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    connect(m_picture, &BackgroundPicture::drawn, this, qOverload<>(&QWidget::update));
}

void ModelView::setSnapshot(SnapshotPtr snapshot)
{
    m_snapshot = std::move(snapshot);
    updateGeometry();
    changed(true);
}

void ModelView::setPlaceholder(const QString& text)
{
    m_placeholder = text;
    update();
}

void ModelView::setCurrent(int64_t layer, int64_t head)
{
    m_layer = layer;
    m_head = head;
    update();
}

void ModelView::setLink(TokenLink* link)
{
    m_link = link;
    connect(link, &TokenLink::hoveredChanged, this, [this] { changed(false); });
    connect(link, &TokenLink::rangeChanged, this, [this] { changed(true); });
}

void ModelView::changed(bool content)
{
    if (content) ++m_key.content;
    if (m_link->hovered() != m_drawnHover) {
        m_drawnHover = m_link->hovered();
        ++m_key.focus;
    }
    update();
}

int ModelView::cellSize() const
{
    return m_snapshot ? kGrid.cellFor(width(), m_snapshot->numHeads()) : 64;
}

QRect ModelView::cellRect(int64_t layer, int64_t head) const
{
    return kGrid.cellRect(cellSize(), layer, head);
}

bool ModelView::linesReady() const
{
    return m_picture->covers(m_key, QRectF(visibleRegion().boundingRect()));
}

QSize ModelView::sizeHint() const
{
    return m_snapshot ? kGrid.size(cellSize(), m_snapshot->numLayers(), m_snapshot->numHeads()) : QSize(400, 300);
}

int ModelView::heightForWidth(int width) const
{
    return m_snapshot ? kGrid.size(kGrid.cellFor(width, m_snapshot->numHeads()), m_snapshot->numLayers(), 0).height()
                      : -1;
}

std::pair<int64_t, int64_t> ModelView::cellAt(const QPoint& pos) const
{
    if (!m_snapshot) return { -1, -1 };
    const int c = cellSize();
    const int64_t l = (pos.y() - kGrid.top) / (c + kGrid.gap), h = (pos.x() - kGrid.left) / (c + kGrid.gap);
    if (pos.x() < kGrid.left || pos.y() < kGrid.top || l >= m_snapshot->numLayers() || h >= m_snapshot->numHeads()
        || !cellRect(l, h).contains(pos))
        return { -1, -1 };
    return { l, h };
}

void ModelView::paintEvent(QPaintEvent* event)
{
    QPainter p(this);
    p.fillRect(event->rect(), palette().base());
    if (!m_snapshot) {
        p.drawText(rect(), Qt::AlignCenter, m_placeholder);
        return;
    }
    p.setPen(palette().text().color());
    for (int64_t h = 0; h < m_snapshot->numHeads(); ++h) {
        const QRect r = cellRect(0, h);
        p.drawText(QRect(r.left(), 0, r.width(), kGrid.top), Qt::AlignCenter, tr("H%1").arg(h));
    }
    for (int64_t l = 0; l < m_snapshot->numLayers(); ++l) {
        const QRect r = cellRect(l, 0);
        p.drawText(QRect(0, r.top(), kGrid.left - 4, r.height()), Qt::AlignRight | Qt::AlignVCenter, tr("L%1").arg(l));
        for (int64_t h = 0; h < m_snapshot->numHeads(); ++h)
            if (event->rect().intersects(cellRect(l, h))) p.fillRect(cellRect(l, h), palette().alternateBase());
    }
    if (!paintsToScreen(*this, redirected(nullptr))) {
        // A screenshot or an export: complete, so the lines are drawn here.
        drawModelLines(
            p, QRectF(event->rect()), [] { return false; }, m_snapshot, cellSize(), m_link->hovered(), m_link->range());
    } else {
        const QRectF visible = visibleRegion().boundingRect();
        if (m_picture->key().content == m_key.content) p.drawImage(m_picture->area().topLeft(), m_picture->image());
        // A screen above and below as well, so that scrolling a little needs no new drawing.
        m_picture->requestFor(visible,
            visible.adjusted(0, -visible.height(), 0, visible.height()).intersected(QRectF(rect())),
            devicePixelRatioF(), m_key,
            [s = m_snapshot, size = cellSize(), hovered = m_link->hovered(), range = m_link->range()](
                QPainter& painter, const QRectF& area, const std::function<bool()>& cancelled) {
                return drawModelLines(painter, area, cancelled, s, size, hovered, range);
            });
    }
    p.setPen(QPen(palette().highlight().color(), 3));
    p.setBrush(Qt::NoBrush);
    p.drawRect(cellRect(m_layer, m_head).adjusted(-3, -3, 2, 2));
}

void ModelView::mouseMoveEvent(QMouseEvent* event)
{
    const auto [l, h] = cellAt(event->pos());
    if (l < 0) return m_link->setHovered({});
    setToolTip(tr("Layer %1 · Head %2: click to open it in the head view").arg(l).arg(h));
    // The left half of a cell is its queries, the right half its keys; a row stands for `block` tokens.
    const QRect cell = cellRect(l, h);
    const CellMatrix m = cellMatrix(m_snapshot, l, h, m_link->range());
    const bool left = event->pos().x() < cell.center().x();
    const int64_t n = m.shown(!left);
    const int64_t slot = std::clamp<int64_t>(
        static_cast<int64_t>((event->pos().y() - cell.top() - kInset) * n / std::max(1, cell.height() - 2 * kInset)), 0,
        n - 1);
    const int64_t first = left ? m.window.query0 : m.window.key0;
    const int64_t token
        = std::min((first + slot) * m.block, (left ? m_snapshot->numQueries() : m_snapshot->numKeys()) - 1);
    m_link->setHovered(left ? LinkedTokens { token, -1 } : LinkedTokens { -1, token });
}

void ModelView::leaveEvent(QEvent*)
{
    m_link->setHovered({});
}

void ModelView::mousePressEvent(QMouseEvent* event)
{
    const auto [l, h] = cellAt(event->pos());
    if (l < 0) return;
    setCurrent(l, h);
    emit headActivated(l, h);
}

void ModelView::keyPressEvent(QKeyEvent* event)
{
    if (!m_snapshot
        || !handleGridKey(
            *event, m_snapshot->numLayers(), m_snapshot->numHeads(), m_layer, m_head,
            [this](int64_t l, int64_t h) { setCurrent(l, h); }, [this] { emit headActivated(m_layer, m_head); }))
        QWidget::keyPressEvent(event);
}

} // namespace attn::ui
