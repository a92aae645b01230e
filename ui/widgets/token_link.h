// SPDX-License-Identifier: MIT
#pragma once
#include <QObject>

#include <cstdint>

namespace attn::ui {

/// The token(s) under the mouse, as positions in the shown snapshot: `query` indexes its query tokens, `key` its key
/// tokens (one sequence for self-attention, target and source for cross-attention); -1 is none.
struct LinkedTokens {
    int64_t query = -1;
    int64_t key = -1;
    bool any() const { return query >= 0 || key >= 0; }
    bool operator==(const LinkedTokens&) const = default;
};

/// Linked hover: the views that show tokens (chips, heatmap, head view, model view) report what the mouse is over
/// here and highlight what is hovered in any of them.
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

signals:
    void hoveredChanged(attn::ui::LinkedTokens tokens);

private:
    LinkedTokens m_hovered;
    bool m_cross = false;
};

} // namespace attn::ui
