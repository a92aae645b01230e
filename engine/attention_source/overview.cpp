// SPDX-License-Identifier: MIT
#include "attention_source/overview.h"

#include "core/error.h"

#include <Eigen/Core>

#include <algorithm>
#include <string>

namespace attn {
namespace {

int64_t cellsFor(int64_t n, int64_t block)
{
    return (n + block - 1) / block;
}

/// Entries of cell (r, c) at this block size: edge cells are cut by the matrix border.
double cellEntries(int64_t r, int64_t c, int64_t block, int64_t numQueries, int64_t numKeys)
{
    const int64_t h = std::min(block, numQueries - r * block), w = std::min(block, numKeys - c * block);
    return static_cast<double>(h) * static_cast<double>(w);
}

OverviewLevel makeLevel(int64_t block, int64_t rows, int64_t cols, std::vector<float> max,
    const std::vector<double>& sum, int64_t numQueries, int64_t numKeys)
{
    OverviewLevel level { block, rows, cols, std::move(max), std::vector<float>(sum.size()) };
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            const size_t i = static_cast<size_t>(r * cols + c);
            level.mean[i] = static_cast<float>(sum[i] / cellEntries(r, c, block, numQueries, numKeys));
        }
    return level;
}

} // namespace

const OverviewLevel& Overview::levelFor(int64_t minCells) const
{
    if (levels.empty()) throw Error("attention overview: no levels");
    for (auto it = levels.rbegin(); it != levels.rend(); ++it)
        if (it->rows >= std::min(minCells, numQueries) && it->cols >= std::min(minCells, numKeys)) return *it;
    return levels.front();
}

size_t Overview::bytes() const
{
    size_t total = sizeof(Overview);
    for (const OverviewLevel& l : levels)
        total += (l.max.size() + l.mean.size()) * sizeof(float) + sizeof(OverviewLevel);
    return total;
}

int64_t overviewBlock(int64_t numQueries, int64_t numKeys, int64_t maxSide)
{
    if (maxSide < 1) throw Error("attention overview: the largest side must be at least 1 cell");
    int64_t block = 1;
    while (cellsFor(numQueries, block) > maxSide || cellsFor(numKeys, block) > maxSide)
        block *= 2;
    return block;
}

OverviewBuilder::OverviewBuilder(int64_t numQueries, int64_t numKeys, int64_t block, const MaskSpec& mask)
    : m_numQueries(numQueries)
    , m_numKeys(numKeys)
    , m_block(block)
    , m_foldLo(numKeys)
{
    m_mask.causal = mask.causal;
    m_mask.queryOffset = mask.queryOffset;
    m_mask.slidingWindow = mask.slidingWindow;
    if (numQueries < 1 || numKeys < 1 || block < 1 || (block & (block - 1)) != 0)
        throw Error("attention overview: cannot cut a " + std::to_string(numQueries) + " x " + std::to_string(numKeys)
            + " matrix into blocks of " + std::to_string(block));
    m_rows = cellsFor(numQueries, block);
    m_cols = cellsFor(numKeys, block);
    m_max.assign(static_cast<size_t>(m_rows * m_cols), 0.0f);
    m_sum.assign(m_max.size(), 0.0);
    m_colMax.assign(static_cast<size_t>(numKeys), 0.0f);
    m_colSum.assign(static_cast<size_t>(numKeys), 0.0);
}

void OverviewBuilder::add(int64_t q0, int64_t rows, const float* probs)
{
    if (q0 != m_nextRow || rows < 0 || q0 + rows > m_numQueries)
        throw Error("attention overview: rows [" + std::to_string(q0) + ", " + std::to_string(q0 + rows)
            + ") do not follow row " + std::to_string(m_nextRow) + " of " + std::to_string(m_numQueries));
    // Rows of one block row are folded column by column first (whole-row vector operations), then cut into cells
    // once per block row: a derived run builds every head's thumbnail inside its forward pass (SummaryCollector), and
    // a head switch builds the heatmap's overview. Only each row's visible keys are folded: the rest are zeros, which
    // change neither a cell's max (it starts at 0) nor its sum, and cells no row of the block row reaches stay 0.
    for (int64_t i = 0; i < rows; ++i) {
        const int64_t q = q0 + i;
        const auto [a, b] = visibleRange(m_mask, q, m_numKeys);
        if (a < b) {
            const Eigen::Map<const Eigen::ArrayXf> row(probs + i * m_numKeys + a, b - a);
            Eigen::Map<Eigen::ArrayXf> colMax(m_colMax.data() + a, b - a);
            colMax = colMax.max(row);
            Eigen::Map<Eigen::ArrayXd>(m_colSum.data() + a, b - a) += row.cast<double>();
            m_foldLo = std::min(m_foldLo, a);
            m_foldHi = std::max(m_foldHi, b);
        }
        if ((q + 1) % m_block != 0 && q + 1 != m_numQueries) continue;
        if (m_foldLo >= m_foldHi) continue;
        cutBlockRow(q / m_block);
    }
    m_nextRow += rows;
}

void OverviewBuilder::cutBlockRow(int64_t blockRow)
{
    // Whole cells over the folded keys (the same sums in the same order as over whole rows, so the result does not
    // depend on the mask), then those keys are zeroed for the next block row.
    const Eigen::Map<Eigen::ArrayXf> colMax(m_colMax.data(), m_numKeys);
    const Eigen::Map<Eigen::ArrayXd> colSum(m_colSum.data(), m_numKeys);
    float* max = m_max.data() + blockRow * m_cols;
    double* sum = m_sum.data() + blockRow * m_cols;
    for (int64_t c = m_foldLo / m_block; c <= (m_foldHi - 1) / m_block; ++c) {
        const int64_t j0 = c * m_block, width = std::min(m_numKeys, j0 + m_block) - j0;
        max[c] = colMax.segment(j0, width).maxCoeff();
        sum[c] = colSum.segment(j0, width).sum();
    }
    std::fill(m_colMax.begin() + m_foldLo, m_colMax.begin() + m_foldHi, 0.0f);
    std::fill(m_colSum.begin() + m_foldLo, m_colSum.begin() + m_foldHi, 0.0);
    m_foldLo = m_numKeys;
    m_foldHi = 0;
}

Overview OverviewBuilder::finish() const
{
    if (m_nextRow != m_numQueries)
        throw Error("attention overview: " + std::to_string(m_nextRow) + " of " + std::to_string(m_numQueries)
            + " rows were added");
    Overview out { m_numQueries, m_numKeys, {} };
    int64_t block = m_block, rows = m_rows, cols = m_cols;
    std::vector<float> max = m_max;
    std::vector<double> sum = m_sum;
    out.levels.push_back(makeLevel(block, rows, cols, max, sum, m_numQueries, m_numKeys));
    while (rows > 1 || cols > 1) {
        const int64_t nextRows = cellsFor(rows, 2), nextCols = cellsFor(cols, 2);
        std::vector<float> nextMax(static_cast<size_t>(nextRows * nextCols), 0.0f);
        std::vector<double> nextSum(nextMax.size(), 0.0);
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) {
                const size_t from = static_cast<size_t>(r * cols + c);
                const size_t to = static_cast<size_t>((r / 2) * nextCols + c / 2);
                nextMax[to] = std::max(nextMax[to], max[from]);
                nextSum[to] += sum[from];
            }
        block *= 2;
        rows = nextRows;
        cols = nextCols;
        max = std::move(nextMax);
        sum = std::move(nextSum);
        out.levels.push_back(makeLevel(block, rows, cols, max, sum, m_numQueries, m_numKeys));
    }
    return out;
}

} // namespace attn
