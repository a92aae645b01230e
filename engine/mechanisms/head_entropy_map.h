// SPDX-License-Identifier: MIT
#pragma once
// Per-head entropy across layers (the seeds' "some heads are inactive: monitor entropy"), flagging near-uniform and
// near-one-hot heads as pruning candidates.
#include "analysis/head_stats.h"

#include <vector>

namespace attn {

class Session;

enum class HeadActivity { Normal, NearUniform, NearOneHot };

struct HeadEntropyMap {
    int64_t layers = 0, heads = 0;
    std::vector<HeadStats> stats; ///< layer-major
    std::vector<HeadActivity> activity; ///< layer-major
    const HeadStats& at(int64_t layer, int64_t head) const { return stats[static_cast<size_t>(layer * heads + head)]; }
};

/// Thresholds on the mean normalized entropy (entropy / log(visible keys); 1 = uniform over the visible keys).
struct HeadActivityThresholds {
    double nearUniform = 0.9; ///< at or above: the head barely prefers any key
    double nearOneHot = 0.1; ///< at or below: almost all weight on one key per row
};

HeadActivity classifyActivity(const HeadStats& stats, const HeadActivityThresholds& thresholds = {});

/// Every head of the session's current input (its attention derived from the session). Throws Error when nothing ran.
HeadEntropyMap headEntropyMap(const Session& session, const HeadActivityThresholds& thresholds = {});

/// Every head's statistics gathered from the probabilities a decoder's pass over an empty session computes anyway
/// (ForwardOptions::observeAttention): the map then needs neither the pass's stored attention nor a second pass over
/// each head (at 4k tokens that second pass re-derived 144 heads of a GPT-2-small-shaped model).
class HeadEntropyCollector {
public:
    /// For a pass of `tokens` positions over `layers` x `heads` query heads, cut with the session's structural mask.
    HeadEntropyCollector(int64_t layers, int64_t heads, int64_t tokens, MaskSpec mask);
    /// Rows [query, query + rows) of one head, [rows, tokens], in order; a head whose rows come out of order is
    /// derived afterwards instead.
    void add(int64_t layer, int64_t head, int64_t query, int64_t rows, const float* probs);
    /// The map of the session the pass ran on: heads observed whole keep their statistics, any other head is derived
    /// from the session as headEntropyMap(session) does.
    HeadEntropyMap map(const Session& session, const HeadActivityThresholds& thresholds = {}) const;

private:
    struct Head {
        HeadStatsAccumulator stats;
        int64_t nextRow = 0;
        bool broken = false;
    };
    int64_t m_layers, m_heads, m_tokens;
    MaskSpec m_mask;
    std::vector<Head> m_collected; ///< [layer * heads + head]
};

/// Every head of attention held per layer as [heads, queries, keys] (an image model's pass, an RNN's one head), each
/// row seeing the keys `mask` allows. Throws Error for an empty list, a tensor not of rank 3 or layers that differ in
/// their head count.
HeadEntropyMap headEntropyMap(
    const std::vector<Tensor>& attention, const MaskSpec& mask, const HeadActivityThresholds& thresholds = {});

} // namespace attn
