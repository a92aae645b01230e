// SPDX-License-Identifier: MIT
#pragma once
// The line drawing behind the head view and the model view: one line per (query, key) pair, clipped to the area
// being drawn and batched by pen, so that a picture of thousands of tokens costs only what is on screen. It runs on a
// worker thread (BackgroundPicture) for the window and straight into the painter for exports.
#include "widgets/token_link.h"

#include <QColor>
#include <QRectF>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

class QPainter;

namespace attn {
class Tensor;
}

namespace attn::ui {

/// Where the tokens sit: the i-th query drawn starts its lines at (leftX, top + (i + 0.5) * rowHeight), the j-th key
/// drawn ends them at (rightX, top + (j + 0.5) * keyRowHeight); keyRowHeight 0 is rowHeight (two columns of different
/// lengths can span the same height). The first drawn is the first of the request's window.
struct LinesLayout {
    double leftX = 0;
    double rightX = 0;
    double top = 0;
    double rowHeight = 20;
    double keyRowHeight = 0;
    double queryY(int64_t index) const { return top + (static_cast<double>(index) + 0.5) * rowHeight; }
    double keyY(int64_t index) const
    {
        return top + (static_cast<double>(index) + 0.5) * (keyRowHeight > 0 ? keyRowHeight : rowHeight);
    }
};

/// One token whose lines alone are drawn: `query` >= 0 shows what it attends to; else `key` >= 0 shows what attends
/// to it (attended by); neither: the lines of every query in the area.
struct LinesFocus {
    int64_t query = -1;
    int64_t key = -1;
    bool any() const { return query >= 0 || key >= 0; }
    bool operator==(const LinesFocus&) const = default;
};

/// Rows [q0, q1) of one picture's matrix as [q1 - q0, numKeys] (thread-safe: called from the drawing thread).
using LinesRowsFn = std::function<std::shared_ptr<const Tensor>(int64_t q0, int64_t q1)>;

struct LinesMatrix {
    LinesRowsFn rows;
    QColor color;
};

/// The default cap on the lines one query row draws per head (LinesRequest::maxPerRow).
inline constexpr int kMaxLinesPerRow = 32;

struct LinesRequest {
    int64_t numQueries = 0;
    int64_t numKeys = 0; ///< also the length of a row that `rows` returns
    /// The queries and keys drawn (the shared token range); a row's opacity is still relative to its strongest key.
    TokenRange window;
    std::vector<LinesMatrix> matrices; ///< drawn in order (one per head)
    LinesFocus focus;
    LinesLayout layout;
    QRectF area; ///< only lines through it are drawn
    double minRelative = 0.02; ///< lines under this fraction of their row's strongest weight are skipped
    /// Each query row draws at most this many lines per matrix, its strongest (0: no cap). A row's lines beyond its
    /// strongest few dozen are faint hairlines stacked on one another: a 512-token head view drew 500,000 lines for a
    /// picture its top 32 per row already show, and took a minute to export.
    int maxPerRow = kMaxLinesPerRow;
    double alpha = 0.45; ///< opacity of a row's strongest line
    double focusAlpha = 0.9; ///< the same with a focus token
    double maxExtraWidth = 4.0; ///< a line is 1 + maxExtraWidth * weight wide
};

/// True when the drawing should stop (a newer request superseded it); checked between row blocks.
using LinesCancel = std::function<bool()>;

/// Draws the request's lines with `p`; false when cancelled part-way.
bool drawAttentionLines(QPainter& p, const LinesRequest& request, const LinesCancel& cancel = {});

} // namespace attn::ui
