// SPDX-License-Identifier: MIT
#pragma once
#include <QObject>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace attn::ui {

/// The token(s) under the mouse, as positions in the shown snapshot: `query` indexes its query tokens, `key` its key
/// tokens (one sequence for self-attention, target and source for cross-attention); -1 is none.
struct LinkedTokens {
    int64_t query = -1;
    int64_t key = -1;
    bool any() const { return query >= 0 || key >= 0; }
    bool operator==(const LinkedTokens&) const = default;
};

/// The positions the views show: queries [query0, query1) and keys [key0, key1) of the shown snapshot; an end of -1
/// is the last token (the default shows everything). Views clamp it to their snapshot.
struct TokenRange {
    int64_t query0 = 0;
    int64_t query1 = -1;
    int64_t key0 = 0;
    int64_t key1 = -1;
    bool all() const { return query0 <= 0 && query1 < 0 && key0 <= 0 && key1 < 0; }
    /// The queries, or with `keys` the keys, of a sequence of `n` as a clamped [begin, end) (never empty for n > 0).
    std::pair<int64_t, int64_t> span(bool keys, int64_t n) const
    {
        const int64_t first = keys ? key0 : query0, end = keys ? key1 : query1;
        const int64_t b = std::clamp<int64_t>(first, 0, std::max<int64_t>(0, n - 1));
        return { b, std::clamp<int64_t>(end < 0 ? n : end, std::min(b + 1, n), n) };
    }
    bool operator==(const TokenRange&) const = default;
};

/// Linked hover and the one token range: the views that show tokens (chips, heatmap, head view, model view) report
/// what the mouse is over here and highlight what is hovered in any of them; the heatmap's zoom, the toolbar's range
/// and the head and model views show the same positions.
class TokenLink : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    void setHovered(LinkedTokens tokens)
    {
        if (tokens == m_hovered) return;
        m_hovered = tokens;
        emit hoveredChanged(tokens);
    }
    LinkedTokens hovered() const { return m_hovered; }
    /// Queries and keys are different sequences (cross-attention): source chips are then keys, target chips queries.
    void setCross(bool cross) { m_cross = cross; }
    bool cross() const { return m_cross; }
    void setRange(TokenRange range)
    {
        if (range == m_range) return;
        m_range = range;
        emit rangeChanged(range);
    }
    TokenRange range() const { return m_range; }

signals:
    void hoveredChanged(attn::ui::LinkedTokens tokens);
    void rangeChanged(attn::ui::TokenRange range);

private:
    LinkedTokens m_hovered;
    bool m_cross = false;
    TokenRange m_range;
};

} // namespace attn::ui
