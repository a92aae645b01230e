// SPDX-License-Identifier: MIT
#include "decode/attention_strip_view.h"

#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace attn::ui {

namespace {
constexpr int kLeft = 30; // room for "L12"
constexpr int kTop = 16; // room for "H12"
constexpr int kGap = 3;
constexpr int kCellHeight = 14;
} // namespace

AttentionStripView::AttentionStripView(QWidget* parent)
    : QWidget(parent)
{
    setObjectName("attentionStrip");
    setMinimumSize(160, 80);
    setToolTip(tr("The new token's attention row for every layer (down) and head (across); click to open a head"));
}

void AttentionStripView::setStep(DecodeStepPtr step)
{
    if (!step) {
        m_image = QImage();
        m_layers = m_heads = 0;
        update();
        return;
    }
    if (!step->attention.empty()) setRows(step->attention);
}

void AttentionStripView::setRows(const std::vector<Tensor>& rows)
{
    m_image = QImage();
    m_layers = static_cast<int64_t>(rows.size());
    m_heads = rows.empty() ? 0 : rows[0].dim(0);
    if (m_layers > 0) {
        const int64_t keys = rows[0].dim(1);
        m_image = QImage(static_cast<int>(keys), static_cast<int>(m_layers * m_heads), QImage::Format_RGB32);
        for (int64_t l = 0; l < m_layers; ++l)
            for (int64_t h = 0; h < m_heads; ++h) {
                const float* row = rows[static_cast<size_t>(l)].data() + h * keys;
                const float maxValue = std::max(1e-12f, *std::max_element(row, row + keys));
                auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(static_cast<int>(l * m_heads + h)));
                for (int64_t k = 0; k < keys; ++k)
                    line[k] = colormapColor(Colormap::Viridis, row[k] / maxValue).rgb();
            }
    }
    update();
}

void AttentionStripView::setCurrent(int64_t layer, int64_t head)
{
    m_layer = layer;
    m_head = head;
    update();
}

void AttentionStripView::setRange(TokenRange range)
{
    m_range = range;
    update();
}

std::pair<int64_t, int64_t> AttentionStripView::shownKeys() const
{
    return m_image.isNull() ? std::pair<int64_t, int64_t> {} : m_range.span(true, m_image.width());
}

QSize AttentionStripView::sizeHint() const
{
    const int layers = m_layers > 0 ? static_cast<int>(m_layers) : 4;
    return { 360, kTop + layers * (kCellHeight + kGap) };
}

QRect AttentionStripView::cellRect(int64_t layer, int64_t head) const
{
    const int64_t heads = m_heads;
    const int width = std::max(8, static_cast<int>((this->width() - kLeft - kGap * heads) / heads));
    return { kLeft + static_cast<int>(head) * (width + kGap), kTop + static_cast<int>(layer) * (kCellHeight + kGap),
        width, kCellHeight };
}

void AttentionStripView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    if (m_image.isNull()) {
        p.drawText(rect(), Qt::AlignCenter, tr("no step yet"));
        return;
    }
    const int64_t layers = m_layers, heads = m_heads;
    const auto [k0, k1] = shownKeys();
    for (int64_t h = 0; h < heads; ++h) {
        const QRect r = cellRect(0, h);
        p.drawText(QRect(r.left(), 0, r.width(), kTop), Qt::AlignCenter, QString("H%1").arg(h));
    }
    for (int64_t l = 0; l < layers; ++l) {
        const QRect r0 = cellRect(l, 0);
        p.drawText(
            QRect(0, r0.top(), kLeft - 2, r0.height()), Qt::AlignVCenter | Qt::AlignRight, QString("L%1").arg(l));
        for (int64_t h = 0; h < heads; ++h) {
            const QRect r = cellRect(l, h);
            const QRect keys(static_cast<int>(k0), static_cast<int>(l * heads + h), static_cast<int>(k1 - k0), 1);
            p.drawImage(r, m_image, keys);
            if (l == m_layer && h == m_head) {
                p.setPen(QPen(QColor(230, 120, 30), 2));
                p.drawRect(r.adjusted(-1, -1, 1, 1));
            }
        }
    }
}

void AttentionStripView::mousePressEvent(QMouseEvent* event)
{
    if (m_image.isNull()) return;
    const int64_t layers = m_layers, heads = m_heads;
    for (int64_t l = 0; l < layers; ++l)
        for (int64_t h = 0; h < heads; ++h)
            if (cellRect(l, h).contains(event->pos())) {
                setCurrent(l, h);
                emit headActivated(l, h);
                return;
            }
}

} // namespace attn::ui
