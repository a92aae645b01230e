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
    bool symmetric = false; ///< a signed matrix (a difference): the colour range is symmetric about 0 even if all >= 0
};

/// The values one heatmap displays, [rows = queries, cols = keys]; NaN marks masked (or excluded) cells. A window of a
/// long input starts at (firstRow, firstCol); an overview cell covers block x block tokens (1: one token per cell).
struct HeatmapMatrix {
    int64_t rows = 0;
    int64_t cols = 0;
    int64_t firstRow = 0;
    int64_t firstCol = 0;
    int64_t block = 1;
    std::vector<double> values;
    double low = 0; ///< colour range
    double high = 1;
    double at(int64_t row, int64_t col) const { return values[static_cast<size_t>(row * cols + col)]; }
};

/// Builds the displayed matrix of one head. Linear: from 0, or symmetric about 0 when some value is negative. Log: log10(p) with p floored at 1e-6; RowNormalized: p / max of its row.
HeatmapMatrix buildHeatmapMatrix(
    const AttentionSnapshot& snapshot, int64_t layer, int64_t head, const HeatmapOptions& options);
/// The window rows [q0, q1) x keys [k0, k1) of one head, read through the snapshot's rows (per-row scaling still
/// sees every key of the row).
HeatmapMatrix buildHeatmapWindow(const AttentionSnapshot& snapshot, int64_t layer, int64_t head,
    const HeatmapOptions& options, int64_t q0, int64_t q1, int64_t k0, int64_t k1);
/// A zoomed-out view: one cell per block of `level` (its block max; log10 when asked), the colour range ending at the
/// cells' 99.5th percentile. Cells without any weight are NaN (masked). Row scaling and excluding the first token
/// apply to single-token windows only.
HeatmapMatrix buildHeatmapOverview(const OverviewLevel& level, const HeatmapOptions& options);

/// 1-based rank of key `col` in one query row of `keys` weights (1 = the key with the largest weight).
int rankInRow(const float* row, int64_t keys, int64_t col);

} // namespace attn::ui
