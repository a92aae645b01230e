// SPDX-License-Identifier: MIT
#include "plots/heatmap_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn::ui {

namespace {
constexpr double kLogFloor = 1e-6;

/// Colour range of the values drawn: log values as they are, probabilities from zero so that colour means the same
/// weight from row to row.
void setRange(HeatmapMatrix& m, const HeatmapOptions& options, double low, double high) {
    if (options.scale == ScaleMode::Log) {
        m.low = std::isfinite(low) ? low : std::log10(kLogFloor);
        m.high = std::isfinite(high) ? high : 0.0;
    } else {
        // Probabilities start at zero so that colour means the same weight from row to row; signed matrices (a
        // difference of two attentions) get a range symmetric about zero, for the diverging colormap.
        m.low = 0.0;
        m.high = std::isfinite(high) && high > 0 ? high : 1.0;
        if (low < 0.0 || options.symmetric) {
            const double reach = std::isfinite(low) ? std::max(-low, std::max(high, 0.0)) : 0.0;
            m.high = reach > 0.0 ? reach : 1.0; // an all-zero difference still puts zero at the middle colour
            m.low = -m.high;
        }
    }
    if (m.high <= m.low) m.high = m.low + 1.0;
}

} // namespace

HeatmapMatrix buildHeatmapMatrix(
    const AttentionSnapshot& snapshot, int64_t layer, int64_t head, const HeatmapOptions& options) {
    return buildHeatmapWindow(
        snapshot, layer, head, options, 0, snapshot.numQueries(), 0, snapshot.numKeys());
}

HeatmapMatrix buildHeatmapWindow(const AttentionSnapshot& snapshot, int64_t layer, int64_t head,
    const HeatmapOptions& options, int64_t q0, int64_t q1, int64_t k0, int64_t k1) {
    HeatmapMatrix m;
    m.rows = q1 - q0;
    m.cols = k1 - k0;
    m.firstRow = q0;
    m.firstCol = k0;
    m.values.assign(static_cast<size_t>(m.rows * m.cols), std::numeric_limits<double>::quiet_NaN());
    if (options.showMask) {
        for (int64_t i = q0; i < q1; ++i)
            for (int64_t j = k0; j < k1; ++j)
                m.values[static_cast<size_t>((i - q0) * m.cols + j - k0)] = snapshot.visible(layer, i, j) ? 1.0 : 0.0;
        return m;
    }
    const auto rows = snapshot.rows(layer, head, q0, q1);
    const int64_t n = snapshot.numKeys();
    const int64_t firstKey = options.excludeFirstToken && n > 1 ? 1 : 0;
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (int64_t i = q0; i < q1; ++i) {
        const float* row = rows->data() + (i - q0) * n;
        double rowSum = 0, rowMax = 0;
        for (int64_t j = firstKey; j < n; ++j) {
            rowSum += row[j];
            rowMax = std::max(rowMax, static_cast<double>(row[j]));
        }
        for (int64_t j = std::max(k0, firstKey); j < k1; ++j) {
            if (!snapshot.visible(layer, i, j)) continue;
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
            m.values[static_cast<size_t>((i - q0) * m.cols + j - k0)] = v;
            low = std::min(low, v);
            high = std::max(high, v);
        }
    }
    setRange(m, options, low, high);
    return m;
}

HeatmapMatrix buildHeatmapOverview(const OverviewLevel& level, const HeatmapOptions& options) {
    HeatmapMatrix m;
    m.rows = level.rows;
    m.cols = level.cols;
    m.block = level.block;
    m.values.assign(static_cast<size_t>(m.rows * m.cols), std::numeric_limits<double>::quiet_NaN());
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (int64_t r = 0; r < m.rows; ++r)
        for (int64_t c = 0; c < m.cols; ++c) {
            double v = level.maxAt(r, c);
            if (v <= 0) continue;
            if (options.scale == ScaleMode::Log) v = std::log10(std::max(v, kLogFloor));
            m.values[static_cast<size_t>(r * m.cols + c)] = v;
            low = std::min(low, v);
        }
    // The colour range ends at the 99.5th percentile of the cells: the first rows of a causal head see one or two
    // keys (weight ~1), and a plain max would leave every later block of a long input at the bottom of the scale.
    std::vector<double> finite;
    for (const double v : m.values)
        if (!std::isnan(v)) finite.push_back(v);
    if (!finite.empty()) {
        const auto at = finite.begin() + static_cast<std::ptrdiff_t>(0.995 * static_cast<double>(finite.size() - 1));
        std::nth_element(finite.begin(), at, finite.end());
        high = *at;
    }
    setRange(m, options, low, high);
    return m;
}

int rankInRow(const float* row, int64_t keys, int64_t col) {
    int rank = 1;
    for (int64_t j = 0; j < keys; ++j)
        if (row[j] > row[col]) ++rank;
    return rank;
}

} // namespace attn::ui
