// SPDX-License-Identifier: MIT
#pragma once
#include <QKeyEvent>

#include <algorithm>
#include <cstdint>

namespace attn::ui {

/// What a key does in a layers x heads grid (the all-heads grid, the model view).
enum class GridKey { Moved, Activated, Ignored };

/// Arrow keys move (layer, head) within [0, layers) x [0, heads); Enter and Return activate the current head.
inline GridKey gridKey(const QKeyEvent& event, int64_t layers, int64_t heads, int64_t& layer, int64_t& head)
{
    switch (event.key()) {
    case Qt::Key_Left:
        head = std::max<int64_t>(0, head - 1);
        return GridKey::Moved;
    case Qt::Key_Right:
        head = std::min(heads - 1, head + 1);
        return GridKey::Moved;
    case Qt::Key_Up:
        layer = std::max<int64_t>(0, layer - 1);
        return GridKey::Moved;
    case Qt::Key_Down:
        layer = std::min(layers - 1, layer + 1);
        return GridKey::Moved;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        return GridKey::Activated;
    default:
        return GridKey::Ignored;
    }
}

/// A grid view's keyPressEvent: `move(layer, head)` for the arrows, `activate()` for Enter; false for other keys
/// (the caller passes those on).
template <class Move, class Activate>
bool handleGridKey(
    const QKeyEvent& event, int64_t layers, int64_t heads, int64_t layer, int64_t head, Move move, Activate activate)
{
    switch (gridKey(event, layers, heads, layer, head)) {
    case GridKey::Moved:
        move(layer, head);
        return true;
    case GridKey::Activated:
        activate();
        return true;
    case GridKey::Ignored:
        break;
    }
    return false;
}

} // namespace attn::ui
