// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"

#include <cstdint>
#include <vector>

namespace attn::ui {

/// How the heatmap turns probabilities into colours.
enum class ScaleMode { Linear, Log, RowNormalized };

struct HeatmapOptions {
    ScaleMode scale = ScaleMode::Linear;
    bool excludeFirstToken = false; ///< hide key 0 (attention sinks) and renormalize the other keys of each row
    bool showMask = false; ///< show the mask itself: 1 = visible, 0 = masked
};

/// The values one heatmap displays, [rows = queries, cols = keys]; NaN marks masked (or excluded) cells.
struct HeatmapMatrix {
    int64_t rows = 0;
    int64_t cols = 0;
    std::vector<double> values;
    double low = 0; ///< colour range
    double high = 1;
    double at(int64_t row, int64_t col) const { return values[static_cast<size_t>(row * cols + col)]; }
};

/// Builds the displayed matrix of one head. Linear: from 0, or symmetric about 0 when some value is negative. Log: log10(p) with p floored at 1e-6; RowNormalized: p / max of its row.
HeatmapMatrix buildHeatmapMatrix(
    const AttentionSnapshot& snapshot, int64_t layer, int64_t head, const HeatmapOptions& options);

/// 1-based rank of key `col` in query row `row` of a head (1 = the key with the largest weight).
int rankInRow(const AttentionSnapshot& snapshot, int64_t layer, int64_t head, int64_t row, int64_t col);

} // namespace attn::ui
