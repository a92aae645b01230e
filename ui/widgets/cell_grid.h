// SPDX-License-Identifier: MIT
#pragma once
// The geometry of a layers x heads grid of square cells that fills the width it is given (All heads, Model view). Its
// height follows from its width, which the views report as heightForWidth, so that their scroll areas scroll a deep
// model instead of cutting its lower layers off.
#include <QRect>
#include <QSizePolicy>

#include <algorithm>
#include <cstdint>

namespace attn::ui {

struct CellGrid {
    int left; ///< room for the layer labels
    int top; ///< room for the head labels
    int gap;
    int minCell; ///< the smallest readable cell; narrower widths scroll sideways
    int maxCell;

    /// The cell size at which `heads` columns fill `width`, within [minCell, maxCell].
    constexpr int cellFor(int width, int64_t heads) const
    {
        const int fit = static_cast<int>((width - left) / std::max<int64_t>(1, heads)) - gap;
        return std::clamp(fit, minCell, maxCell);
    }

    constexpr QRect cellRect(int cell, int64_t layer, int64_t head) const
    {
        return QRect(left + static_cast<int>(head) * (cell + gap), top + static_cast<int>(layer) * (cell + gap), cell,
            cell);
    }

    /// Width and height of the whole grid of `layers` x `heads` cells of size `cell`.
    constexpr QSize size(int cell, int64_t layers, int64_t heads) const
    {
        return QSize(left + static_cast<int>(heads) * (cell + gap), top + static_cast<int>(layers) * (cell + gap));
    }
};

/// Preferred both ways, the height following the width: what a scroll area needs to scroll a grid that fills it.
inline QSizePolicy gridSizePolicy()
{
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    return policy;
}

} // namespace attn::ui
