// SPDX-License-Identifier: MIT
#include "plots/heatmap_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::ui {

namespace {
constexpr double kLogFloor = 1e-6;
}

HeatmapMatrix buildHeatmapMatrix(
    const AttentionSnapshot& snapshot, int64_t layer, int64_t head, const HeatmapOptions& options) {
    const float* p = snapshot.head(layer, head);
    HeatmapMatrix m;
    m.rows = snapshot.numQueries();
    m.cols = snapshot.numKeys();
    m.values.assign(static_cast<size_t>(m.rows * m.cols), std::numeric_limits<double>::quiet_NaN());
    if (options.showMask) {
        for (int64_t i = 0; i < m.rows; ++i)
            for (int64_t j = 0; j < m.cols; ++j)
                m.values[static_cast<size_t>(i * m.cols + j)] = snapshot.visible(i, j) ? 1.0 : 0.0;
        return m;
    }
    const int64_t firstKey = options.excludeFirstToken && m.cols > 1 ? 1 : 0;
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (int64_t i = 0; i < m.rows; ++i) {
        const float* row = p + i * m.cols;
        double rowSum = 0, rowMax = 0;
        for (int64_t j = firstKey; j < m.cols; ++j) {
            rowSum += row[j];
            rowMax = std::max(rowMax, static_cast<double>(row[j]));
        }
        for (int64_t j = firstKey; j < m.cols; ++j) {
            if (!snapshot.visible(i, j)) continue;
            double v = row[j];
            if (firstKey > 0) v = rowSum > 0 ? v / rowSum : 0.0;
            switch (options.scale) {
            case ScaleMode::Linear:
                break;
            case ScaleMode::Log:
                v = std::log10(std::max(v, kLogFloor));
                break;
            case ScaleMode::RowNormalized:
                v = rowMax > 0 ? row[j] / rowMax : 0.0;
                break;
            }
            m.values[static_cast<size_t>(i * m.cols + j)] = v;
            low = std::min(low, v);
            high = std::max(high, v);
        }
    }
    if (options.scale == ScaleMode::Log) {
        m.low = std::isfinite(low) ? low : std::log10(kLogFloor);
        m.high = std::isfinite(high) ? high : 0.0;
    } else {
        // Probabilities start at zero so that colour means the same weight from row to row; signed matrices (a
        // difference of two attentions) get a range symmetric about zero, for the diverging colormap.
        m.low = 0.0;
        m.high = std::isfinite(high) && high > 0 ? high : 1.0;
        if (low < 0.0) {
            m.high = std::max(-low, std::max(high, 0.0));
            m.low = -m.high;
        }
    }
    if (m.high <= m.low) m.high = m.low + 1.0;
    return m;
}

int rankInRow(const AttentionSnapshot& snapshot, int64_t layer, int64_t head, int64_t row, int64_t col) {
    const float* r = snapshot.head(layer, head) + row * snapshot.numKeys();
    int rank = 1;
    for (int64_t j = 0; j < snapshot.numKeys(); ++j)
        if (r[j] > r[col]) ++rank;
    return rank;
}

} // namespace attn::ui
