// SPDX-License-Identifier: MIT
#include "widgets/head_lines_view.h"

#include "model/token_text.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace attn::ui {

namespace {
constexpr int kRowHeight = 20;
constexpr int kTop = 44; // head swatches above the token columns
constexpr int kColumnWidth = 130;
constexpr int kSpan = 260; // distance between the two columns, where the lines go
}

HeadLinesView::HeadLinesView(QWidget* parent)
    : QWidget(parent) {
    setObjectName("headLines");
    setMouseTracking(false);
}

QColor HeadLinesView::headColor(int64_t head) {
    static const QColor colors[] = { QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
        QColor(214, 39, 40), QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127),
        QColor(188, 189, 34), QColor(23, 190, 207) };
    return colors[head % 10];
}

void HeadLinesView::setSnapshot(SnapshotPtr snapshot) {
    m_snapshot = std::move(snapshot);
    if (m_snapshot && m_selected >= m_snapshot->numQueries()) m_selected = -1;
    updateGeometry();
    update();
}

void HeadLinesView::setLayer(int64_t layer) {
    m_layer = layer;
    update();
}

void HeadLinesView::setHeads(const std::set<int64_t>& heads) {
    m_heads = heads;
    update();
}

void HeadLinesView::setSelectedToken(int64_t token) {
    m_selected = token;
    update();
}

QRect HeadLinesView::tokenRect(bool left, int64_t index) const {
    const int x = left ? 10 : 10 + kColumnWidth + kSpan;
    return QRect(x, kTop + static_cast<int>(index) * kRowHeight, kColumnWidth, kRowHeight);
}

QRect HeadLinesView::swatchRect(int64_t head) const {
    return QRect(10 + static_cast<int>(head) * 52, 8, 48, 22);
}

QSize HeadLinesView::sizeHint() const {
    const int rows = m_snapshot ? static_cast<int>(std::max(m_snapshot->numKeys(), m_snapshot->numQueries())) : 10;
    return QSize(20 + 2 * kColumnWidth + kSpan, kTop + rows * kRowHeight + 10);
}

void HeadLinesView::paintEvent(QPaintEvent* event) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    if (!m_snapshot || m_layer >= m_snapshot->numLayers()) {
        p.drawText(rect(), Qt::AlignCenter, tr("No attention yet: open a model and type an input"));
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
    // Only the query rows in the painted area are read (through the snapshot's rows: a long input's heads are
    // never held whole); a selected query is always drawn.
    const int64_t q = m_snapshot->numQueries(), k = m_snapshot->numKeys();
    const int64_t lines = std::max(q, k);
    const int64_t firstRow = std::clamp<int64_t>((event->rect().top() - kTop) / kRowHeight - 1, 0, lines);
    const int64_t lastRow = std::clamp<int64_t>((event->rect().bottom() - kTop) / kRowHeight + 2, firstRow, lines);
    const int64_t q0 = m_selected >= 0 ? m_selected : std::min(firstRow, q);
    const int64_t q1 = m_selected >= 0 ? m_selected + 1 : std::min(lastRow, q);
    for (int64_t h : m_heads) {
        if (h >= m_snapshot->numHeads() || q1 <= q0) continue;
        const auto rows = m_snapshot->rows(m_layer, h, q0, q1);
        QColor c = headColor(h);
        for (int64_t i = q0; i < q1; ++i) {
            const QPointF from(tokenRect(true, i).right() + 4, tokenRect(true, i).center().y());
            const float* row = rows->data() + (i - q0) * k;
            const float rowMax = std::max(1e-12f, *std::max_element(row, row + k));
            for (int64_t j = 0; j < k; ++j) {
                // Opacity relative to the row's strongest key, so diffuse heads stay visible; width shows the weight.
                const float relative = row[j] / rowMax;
                if (relative < 0.02f) continue;
                c.setAlphaF(relative * (m_selected >= 0 ? 0.9f : 0.45f));
                p.setPen(QPen(c, 1.0 + 4.0 * row[j]));
                p.drawLine(from, QPointF(tokenRect(false, j).left() - 4, tokenRect(false, j).center().y()));
            }
        }
    }
    // Queries on the left, keys on the right (they differ for cross-attention).
    for (bool left : { true, false }) {
        const std::vector<TokenChip>& tokens = left ? m_snapshot->queryTokens() : m_snapshot->tokens();
        const int64_t last = std::min<int64_t>(static_cast<int64_t>(tokens.size()), lastRow + 1);
        for (int64_t i = std::min(firstRow, last); i < last; ++i) {
            const QString text = displayToken(tokens[static_cast<size_t>(i)]);
            const QRect r = tokenRect(left, i);
            if (left && i == m_selected) p.fillRect(r, palette().highlight());
            p.setPen(left && i == m_selected ? palette().highlightedText().color() : palette().text().color());
            p.drawText(r.adjusted(4, 0, -4, 0), (left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter,
                fontMetrics().elidedText(text, Qt::ElideRight, r.width() - 8));
        }
    }
}

void HeadLinesView::mousePressEvent(QMouseEvent* event) {
    if (!m_snapshot) return;
    for (int64_t h = 0; h < m_snapshot->numHeads(); ++h)
        if (swatchRect(h).contains(event->pos())) {
            if (!m_heads.erase(h)) m_heads.insert(h);
            update();
            return;
        }
    for (int64_t i = 0; i < m_snapshot->numQueries(); ++i)
        if (tokenRect(true, i).contains(event->pos())) {
            setSelectedToken(i == m_selected ? -1 : i);
            return;
        }
}

} // namespace attn::ui
