// SPDX-License-Identifier: MIT
#pragma once
// Level-of-detail overviews of one head's [q, k] probability matrix: per square block of cells the largest and the
// mean probability, at block sizes doubling from the finest level to a single block. Built from row blocks streamed
// in order, so the full matrix is never held.
#include "attention/attention.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attn {

/// One level: the matrix cut into block x block cells (edge cells are smaller), [rows, cols] of them.
struct OverviewLevel {
    int64_t block = 1;
    int64_t rows = 0;
    int64_t cols = 0;
    std::vector<float> max; ///< [rows, cols] largest probability in each cell
    std::vector<float> mean; ///< [rows, cols] mean over each cell's entries (masked entries count as 0)

    float maxAt(int64_t r, int64_t c) const { return max[static_cast<size_t>(r * cols + c)]; }
    float meanAt(int64_t r, int64_t c) const { return mean[static_cast<size_t>(r * cols + c)]; }
};

/// Levels finest first; the last has one cell.
struct Overview {
    int64_t numQueries = 0;
    int64_t numKeys = 0;
    std::vector<OverviewLevel> levels;

    /// The coarsest level with at least `minCells` cells along both axes (or the finest, when none has).
    const OverviewLevel& levelFor(int64_t minCells) const;
    size_t bytes() const;
};

/// The smallest power-of-two block that cuts a [q, k] matrix into at most maxSide cells per side.
int64_t overviewBlock(int64_t numQueries, int64_t numKeys, int64_t maxSide);

/// Accumulates row blocks of a [numQueries, numKeys] matrix into an Overview whose finest level has the given block.
class OverviewBuilder {
public:
    /// Throws Error on non-positive sizes or a block that is not a power of two. The causal and sliding-window
    /// rules of `mask` (visibleRange) say which keys of each row can be non-zero: only those are folded in (about
    /// half the work for a causal head), so every added row must be exactly 0 outside its visible range. The
    /// default mask folds whole rows.
    OverviewBuilder(int64_t numQueries, int64_t numKeys, int64_t block, const MaskSpec& mask = {});
    /// Rows [q0, q0 + rows) as a row-major [rows, numKeys] block; blocks come in row order without gaps.
    void add(int64_t q0, int64_t rows, const float* probs);
    /// Throws Error unless every row was added.
    Overview finish() const;

private:
    /// Writes the cells of one block row from the folded keys and clears them.
    void cutBlockRow(int64_t blockRow);

    int64_t m_numQueries, m_numKeys, m_block, m_rows, m_cols;
    int64_t m_nextRow = 0;
    MaskSpec m_mask; ///< its causal, window and offset parts only
    /// Keys [m_foldLo, m_foldHi) hold what the rows of the block row being filled folded in; zero elsewhere.
    int64_t m_foldLo, m_foldHi = 0;
    std::vector<float> m_max;
    std::vector<double> m_sum;
    /// Per key, the largest entry and the sum of the rows added so far of the block row being filled.
    std::vector<float> m_colMax;
    std::vector<double> m_colSum;
};

} // namespace attn
