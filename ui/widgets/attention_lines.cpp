// SPDX-License-Identifier: MIT
#include "widgets/attention_lines.h"

#include "core/tensor.h"

#include <QLineF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attn::ui {

namespace {

// Pens are quantized so that a picture of tens of thousands of lines is a few hundred drawLines calls.
constexpr int kAlphaLevels = 48;
constexpr int kWidthLevels = 10;
// Rows read per call: bounds the memory a 8k-key picture holds at once.
constexpr int64_t kRowBlock = 64;

/// Liang-Barsky: clips the segment a-b to `box`; false when nothing of it is inside.
bool clip(QPointF& a, QPointF& b, const QRectF& box)
{
    double t0 = 0.0, t1 = 1.0;
    const double dx = b.x() - a.x(), dy = b.y() - a.y();
    const double p[] = { -dx, dx, -dy, dy };
    const double q[] = { a.x() - box.left(), box.right() - a.x(), a.y() - box.top(), box.bottom() - a.y() };
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0.0) {
            if (q[i] < 0.0) return false;
            continue;
        }
        const double t = q[i] / p[i];
        if (p[i] < 0.0)
            t0 = std::max(t0, t);
        else
            t1 = std::min(t1, t);
        if (t0 > t1) return false;
    }
    const QPointF from = a;
    a = QPointF(from.x() + t0 * dx, from.y() + t0 * dy);
    b = QPointF(from.x() + t1 * dx, from.y() + t1 * dy);
    return true;
}

/// The query rows whose lines the request draws.
std::pair<int64_t, int64_t> queryRange(const LinesRequest& r)
{
    const auto [begin, end] = r.window.span(false, r.numQueries);
    if (r.focus.query >= 0)
        return r.focus.query >= begin && r.focus.query < end ? std::pair { r.focus.query, r.focus.query + 1 }
                                                             : std::pair<int64_t, int64_t> { 0, 0 };
    if (r.focus.key >= 0) return { begin, end };
    const double h = r.layout.rowHeight;
    const auto first = begin + static_cast<int64_t>(std::floor((r.area.top() - r.layout.top) / h)) - 1;
    const auto last = begin + static_cast<int64_t>(std::ceil((r.area.bottom() - r.layout.top) / h)) + 1;
    return { std::clamp<int64_t>(first, begin, end), std::clamp<int64_t>(last, begin, end) };
}

} // namespace

bool drawAttentionLines(QPainter& p, const LinesRequest& r, const LinesCancel& cancel)
{
    const auto [q0, q1] = queryRange(r);
    const int64_t q0Window = r.window.span(false, r.numQueries).first;
    if (q1 <= q0 || r.numKeys <= 0) return true;
    const double alpha = r.focus.any() ? r.focusAlpha : r.alpha;
    const double widest = 1.0 + r.maxExtraWidth;
    const QRectF box = r.area.adjusted(-widest, -widest, widest, widest);
    const auto [firstKey, endKey] = r.window.span(true, r.numKeys);
    const bool byKey = r.focus.query < 0 && r.focus.key >= 0;
    const int64_t k0 = byKey ? std::max(r.focus.key, firstKey) : firstKey;
    const int64_t k1 = byKey ? std::min(r.focus.key + 1, endKey) : endKey;
    p.setRenderHint(QPainter::Antialiasing);
    std::vector<std::vector<QLineF>> buckets(static_cast<size_t>(kAlphaLevels * kWidthLevels));
    std::vector<int64_t> keys; // one row's drawn keys
    for (const LinesMatrix& m : r.matrices) {
        for (auto& b : buckets)
            b.clear();
        for (int64_t b0 = q0; b0 < q1; b0 += kRowBlock) {
            if (cancel && cancel()) return false;
            const int64_t b1 = std::min(q1, b0 + kRowBlock);
            const auto rows = m.rows(b0, b1);
            for (int64_t i = b0; i < b1; ++i) {
                const float* row = rows->data() + (i - b0) * r.numKeys;
                const float rowMax = std::max(1e-12f, *std::max_element(row, row + r.numKeys));
                const float floor = static_cast<float>(r.minRelative) * rowMax;
                keys.clear();
                for (int64_t j = k0; j < k1; ++j)
                    if (row[j] >= floor) keys.push_back(j);
                if (r.maxPerRow > 0 && static_cast<int64_t>(keys.size()) > r.maxPerRow) {
                    // The strongest keys, ties to the earlier position, so the choice is deterministic.
                    const auto stronger
                        = [row](int64_t a, int64_t b) { return row[a] > row[b] || (row[a] == row[b] && a < b); };
                    std::nth_element(keys.begin(), keys.begin() + r.maxPerRow, keys.end(), stronger);
                    keys.resize(static_cast<size_t>(r.maxPerRow));
                }
                const QPointF from(r.layout.leftX, r.layout.queryY(i - q0Window));
                for (int64_t j : keys) {
                    // Opacity relative to the row's strongest key, so diffuse heads stay visible; width shows weight.
                    const double relative = row[j] / rowMax;
                    QPointF a = from, b(r.layout.rightX, r.layout.keyY(j - firstKey));
                    if (!clip(a, b, box)) continue;
                    const int level = std::min(kAlphaLevels - 1, static_cast<int>(relative * kAlphaLevels));
                    const int width = std::min(kWidthLevels - 1,
                        static_cast<int>(std::clamp(static_cast<double>(row[j]), 0.0, 1.0) * (kWidthLevels - 1) + 0.5));
                    buckets[static_cast<size_t>(level * kWidthLevels + width)].emplace_back(a, b);
                }
            }
        }
        for (int level = 0; level < kAlphaLevels; ++level)
            for (int width = 0; width < kWidthLevels; ++width) {
                const auto& lines = buckets[static_cast<size_t>(level * kWidthLevels + width)];
                if (lines.empty()) continue;
                QColor c = m.color;
                c.setAlphaF(static_cast<float>(alpha * (level + 0.5) / kAlphaLevels));
                // Hairlines (most lines of a long input) take Qt's cosmetic stroker, far cheaper than stroking a path.
                QPen pen(c, 1.0 + r.maxExtraWidth * width / (kWidthLevels - 1), Qt::SolidLine, Qt::FlatCap);
                pen.setCosmetic(width == 0);
                p.setPen(pen);
                p.drawLines(lines.data(), static_cast<int>(lines.size()));
            }
    }
    return true;
}

} // namespace attn::ui
