// SPDX-License-Identifier: MIT
#pragma once
// Per-head summary statistics of attention probabilities, shared by the GUI, the CLI and exports.
#include "attention/attention.h"
#include "core/tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// Statistics of one head's [q, k] probability matrix. Every value is a mean over query rows;
/// rows with no visible key (or zero total weight) are skipped. Query row i sits at absolute position
/// mask.queryOffset + i, key column j at position j (the MaskSpec convention).
struct HeadStats {
    double entropy = 0; ///< mean of -sum_j p log p, in nats
    double normalizedEntropy = 0; ///< mean of entropy / log(visible keys), over rows seeing >= 2 keys; 1 = uniform
    double meanDistance = 0; ///< mean of sum_j p * |pos(i) - j|, in tokens
    double sinkMass = 0; ///< mean weight on key 0 (the first token, a typical attention sink)
    double previousToken = 0; ///< mean weight on key pos(i) - 1, over rows with pos(i) >= 1
    double diagonal = 0; ///< mean weight on key pos(i) (the token itself), over rows with pos(i) < k
    int64_t rows = 0; ///< rows that entered the means
};

/// Role tags, a bit set.
enum HeadRole : unsigned {
    RoleNone = 0,
    RolePreviousToken = 1u << 0,
    RoleSink = 1u << 1,
    RoleBroad = 1u << 2,
};

/// Thresholds for the role tags; a head may carry several roles.
struct HeadRoleThresholds {
    double previousToken = 0.5; ///< previousToken >= this
    double sink = 0.5; ///< sinkMass >= this
    double broad = 0.9; ///< normalizedEntropy >= this
};

/// Head statistics gathered row block by row block (a long input's head is never held whole): adding the blocks of
/// a matrix in row order gives exactly what computeHeadStats() gives for the whole matrix.
class HeadStatsAccumulator {
public:
    /// A row-major [rows, numKeys] block; mask.queryOffset is the absolute position of its first row. Throws Error on
    /// non-positive sizes.
    void add(const float* probs, int64_t rows, int64_t numKeys, const MaskSpec& mask);
    HeadStats result() const;

private:
    // Running mean that ignores rows a statistic does not apply to.
    struct Mean {
        double sum = 0;
        int64_t count = 0;
        void add(double v)
        {
            sum += v;
            ++count;
        }
        double value() const { return count > 0 ? sum / static_cast<double>(count) : 0.0; }
    };
    Mean m_entropy, m_normalized, m_distance, m_sink, m_previous, m_diagonal;
};

/// Stats of one head: probs is a row-major [numQueries, numKeys] block. `mask` says which keys each row may see
/// (only for the normalized entropy's log(visible keys)). Throws Error on non-positive sizes.
HeadStats computeHeadStats(const float* probs, int64_t numQueries, int64_t numKeys, const MaskSpec& mask);

/// Stats of every head of a [heads, q, k] tensor, in head order. Throws Error if the tensor is not rank 3.
std::vector<HeadStats> computeLayerHeadStats(const Tensor& probs, const MaskSpec& mask);

unsigned classifyHead(const HeadStats& stats, const HeadRoleThresholds& thresholds = {});

/// "previous-token, sink" style text for a role set; empty for RoleNone.
std::string headRoleNames(unsigned roles);

} // namespace attn
