// SPDX-License-Identifier: MIT
#include "widgets/head_lines_view.h"

#include "model/token_text.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace attn::ui {

namespace {
constexpr int kRowHeight = 20; // on screen; exports of long inputs may use less (fitRowsTo)
constexpr int kMinTextRow = 6; // rows under this pitch show no token text: it would be unreadable
constexpr int kTop = 44; // head swatches above the token columns
constexpr int kColumnWidth = 130;
constexpr int kSpan = 260; // distance between the two columns, where the lines go
constexpr int kLeft = 10;
constexpr int kBottom = 10;
constexpr int kTitleRoom = 120; // after the swatches: "Layer N" and the start of the hint
}

HeadLinesView::HeadLinesView(QWidget* parent)
    : QWidget(parent)
    , m_link(new TokenLink(this))
    , m_picture(new BackgroundPicture(this))
{
    setObjectName("headLines");
    // Never shorter than its rows: in its scroll area a long input scrolls instead of being cut off at the bottom.
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    setMouseTracking(true);
    connect(m_picture, &BackgroundPicture::drawn, this, qOverload<>(&QWidget::update));
    setLink(m_link);
}

QColor HeadLinesView::headColor(int64_t head)
{
    static const QColor colors[] = { QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
        QColor(214, 39, 40), QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
        QColor(188, 189, 34), QColor(23, 190, 207) };
    return colors[head % 10];
}

void HeadLinesView::setSnapshot(SnapshotPtr snapshot)
{
    m_snapshot = std::move(snapshot);
    if (m_snapshot && m_pinned.query >= m_snapshot->numQueries()) m_pinned.query = -1;
    if (m_snapshot && m_pinned.key >= m_snapshot->numKeys()) m_pinned.key = -1;
    updateGeometry();
    changed(true);
}

void HeadLinesView::setPlaceholder(const QString& text)
{
    m_placeholder = text;
    update();
}

void HeadLinesView::setLayer(int64_t layer)
{
    m_layer = layer;
    changed(true);
}

void HeadLinesView::setHeads(const std::set<int64_t>& heads)
{
    m_heads = heads;
    changed(true);
}

void HeadLinesView::setSelectedToken(int64_t token)
{
    m_pinned = { token, -1 };
    changed(false);
}

void HeadLinesView::setSelectedKey(int64_t key)
{
    m_pinned = { -1, key };
    changed(false);
}

void HeadLinesView::setLink(TokenLink* link)
{
    disconnect(m_link, nullptr, this, nullptr);
    m_link = link;
    connect(m_link, &TokenLink::hoveredChanged, this, [this] { changed(false); });
    connect(m_link, &TokenLink::rangeChanged, this, [this] {
        updateGeometry(); // as many rows as the range has
        changed(true);
    });
    changed(true);
}

LinesFocus HeadLinesView::focus() const
{
    const LinkedTokens hovered = m_link->hovered();
    if (hovered.query >= 0) return { hovered.query, -1 };
    if (hovered.key >= 0) return { -1, hovered.key };
    return m_pinned;
}

void HeadLinesView::changed(bool content)
{
    if (content) ++m_key.content;
    if (focus() != m_drawnFocus) {
        m_drawnFocus = focus();
        ++m_key.focus;
    }
    update();
}

bool HeadLinesView::linesReady() const
{
    return m_picture->covers(m_key, QRectF(visibleRegion().boundingRect()));
}

std::pair<int64_t, int64_t> HeadLinesView::shown(bool keys) const
{
    if (!m_snapshot) return { 0, 0 };
    return m_link->range().span(keys, keys ? m_snapshot->numKeys() : m_snapshot->numQueries());
}

QRect HeadLinesView::tokenRect(bool left, int64_t index) const
{
    const int x = left ? kLeft : kLeft + kColumnWidth + kSpan;
    const int64_t row = index - shown(!left).first;
    return QRect(x, kTop + static_cast<int>(row) * m_rowHeight, kColumnWidth, m_rowHeight);
}

QRect HeadLinesView::swatchRect(int64_t head) const
{
    return QRect(kLeft + static_cast<int>(head) * 52, 8, 48, 22);
}

int HeadLinesView::rows() const
{
    if (!m_snapshot) return 10;
    const auto [q0, q1] = shown(false);
    const auto [k0, k1] = shown(true);
    return static_cast<int>(std::max(q1 - q0, k1 - k0));
}

QSize HeadLinesView::sizeHint() const
{
    // Wide enough for the head swatches and the layer title too: a 12-head model's swatches alone are 634 px, and a
    // figure at the columns' 540 px cut off the last heads and the title.
    const int heads = m_snapshot ? static_cast<int>(m_snapshot->numHeads()) : 0;
    const int header = swatchRect(heads).left() + kTitleRoom + kLeft;
    return QSize(std::max(2 * kLeft + 2 * kColumnWidth + kSpan, header), kTop + rows() * m_rowHeight + kBottom);
}

void HeadLinesView::fitRowsTo(int height)
{
    m_rowHeight = std::clamp((height - kTop - kBottom) / std::max(1, rows()), 1, kRowHeight);
    updateGeometry();
    changed(true);
}

LinesRequest HeadLinesView::linesRequest(const QRectF& area) const
{
    LinesRequest r;
    r.numQueries = m_snapshot->numQueries();
    r.numKeys = m_snapshot->numKeys();
    for (int64_t h : m_heads)
        if (h < m_snapshot->numHeads())
            r.matrices.push_back(
                { [s = m_snapshot, l = m_layer, h](int64_t q0, int64_t q1) { return s->rows(l, h, q0, q1); },
                    headColor(h) });
    r.window = m_link->range();
    r.focus = focus();
    r.layout = { kLeft + kColumnWidth + 4.0, kLeft + kColumnWidth + kSpan - 4.0, static_cast<double>(kTop),
        static_cast<double>(m_rowHeight) };
    r.area = area;
    // Rows packed tighter than on screen draw fewer lines each: as many per pixel of height as on screen.
    r.maxPerRow = std::max(1, kMaxLinesPerRow * m_rowHeight / kRowHeight);
    return r;
}

void HeadLinesView::paintEvent(QPaintEvent* event)
{
    QPainter p(this);
    p.fillRect(event->rect(), palette().base());
    if (!m_snapshot || m_layer >= m_snapshot->numLayers()) {
        p.drawText(rect(), Qt::AlignCenter, m_placeholder);
        return;
    }
    p.setRenderHint(QPainter::Antialiasing);
    for (int64_t h = 0; h < m_snapshot->numHeads(); ++h) {
        const QRect r = swatchRect(h);
        const bool on = m_heads.count(h) != 0;
        p.setPen(headColor(h).darker(130));
        p.setBrush(on ? headColor(h) : palette().base().color());
        p.drawRoundedRect(r, 4, 4);
        p.setPen(on ? Qt::white : palette().text().color());
        p.drawText(r, Qt::AlignCenter, tr("H%1").arg(h));
    }
    // The title: which layer the swatches' heads belong to (the toolbar chooses it) and how to read the lines.
    const int titleLeft = swatchRect(m_snapshot->numHeads()).left() + 8;
    const QRect title(titleLeft, swatchRect(0).top(), std::max(0, width() - titleLeft - kLeft), swatchRect(0).height());
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(palette().text().color());
    const QString layer = tr("Layer %1").arg(m_layer);
    p.drawText(title, Qt::AlignLeft | Qt::AlignVCenter, layer);
    const int hintLeft = QFontMetrics(bold).horizontalAdvance(layer) + 12;
    p.setFont(font());
    p.drawText(title.adjusted(hintLeft, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
        fontMetrics().elidedText(tr("queries left, keys right: hover or click a token"), Qt::ElideRight,
            std::max(0, title.width() - hintLeft)));
    if (!paintsToScreen(*this, redirected(nullptr))) {
        // An export or a grab: the picture must be complete (and vector in SVG/PDF), so the lines are drawn here.
        if (!m_linesDeferred) drawAttentionLines(p, linesRequest(event->rect()));
    } else {
        // Until the new lines arrive the previous ones stand in when only the focus token changed.
        if (m_picture->key().content == m_key.content) p.drawImage(m_picture->area().topLeft(), m_picture->image());
        const QRectF visible = visibleRegion().boundingRect();
        // A screen above and below as well, so that scrolling a little needs no new drawing.
        m_picture->requestFor(visible,
            visible.adjusted(0, -visible.height(), 0, visible.height()).intersected(QRectF(rect())),
            devicePixelRatioF(), m_key,
            [r = linesRequest(QRectF())](
                QPainter& painter, const QRectF& area, const std::function<bool()>& cancelled) mutable {
                r.area = area;
                return drawAttentionLines(painter, r, cancelled);
            });
    }
    // Queries on the left, keys on the right (they differ for cross-attention); the focus tokens highlighted.
    // (Rows count from the first token of the range shown on that side.)
    const int64_t lines = rows();
    const int64_t firstRow = std::clamp<int64_t>((event->rect().top() - kTop) / m_rowHeight - 1, 0, lines);
    const int64_t lastRow = std::clamp<int64_t>((event->rect().bottom() - kTop) / m_rowHeight + 2, firstRow, lines);
    if (m_rowHeight < kMinTextRow) return;
    if (m_rowHeight < kRowHeight) { // a long input's export: the text shrinks with its rows
        QFont small = font();
        small.setPixelSize(m_rowHeight - 2);
        p.setFont(small);
    }
    const LinkedTokens hovered = m_link->hovered();
    const int64_t markedQuery = hovered.any() ? hovered.query : m_pinned.query;
    const int64_t markedKey = hovered.any() ? hovered.key : m_pinned.key;
    for (bool left : { true, false }) {
        const std::vector<TokenChip>& tokens = left ? m_snapshot->queryTokens() : m_snapshot->tokens();
        const int64_t marked = left ? markedQuery : markedKey;
        const auto [begin, end] = shown(!left);
        const int64_t last = std::min<int64_t>(end, begin + lastRow + 1);
        for (int64_t i = std::min(begin + firstRow, last); i < last; ++i) {
            const QString text = displayToken(tokens[static_cast<size_t>(i)]);
            const QRect r = tokenRect(left, i);
            if (i == marked) p.fillRect(r, palette().highlight());
            p.setPen(i == marked ? palette().highlightedText().color() : palette().text().color());
            p.drawText(r.adjusted(4, 0, -4, 0), (left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                p.fontMetrics().elidedText(text, Qt::ElideRight, r.width() - 8));
        }
    }
}

LinesFocus HeadLinesView::tokenAt(const QPoint& pos) const
{
    if (!m_snapshot || pos.y() < kTop) return {};
    const int64_t row = (pos.y() - kTop) / m_rowHeight;
    const auto [q0, q1] = shown(false);
    const auto [k0, k1] = shown(true);
    const QRect left = tokenRect(true, q0), right = tokenRect(false, k0);
    if (left.left() <= pos.x() && pos.x() <= left.right() && q0 + row < q1) return { q0 + row, -1 };
    if (right.left() <= pos.x() && pos.x() <= right.right() && k0 + row < k1) return { -1, k0 + row };
    return {};
}

void HeadLinesView::mouseMoveEvent(QMouseEvent* event)
{
    const LinesFocus f = tokenAt(event->pos());
    m_link->setHovered({ f.query, f.key });
}

void HeadLinesView::leaveEvent(QEvent*)
{
    m_link->setHovered({});
}

void HeadLinesView::mousePressEvent(QMouseEvent* event)
{
    if (!m_snapshot) return;
    for (int64_t h = 0; h < m_snapshot->numHeads(); ++h)
        if (swatchRect(h).contains(event->pos())) {
            if (!m_heads.erase(h)) m_heads.insert(h);
            changed(true);
            return;
        }
    const LinesFocus f = tokenAt(event->pos());
    if (f.any()) {
        m_pinned = f == m_pinned ? LinesFocus {} : f;
        changed(false);
    }
}

} // namespace attn::ui
