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

/// Every head of attention held per layer as [heads, queries, keys] (an image model's pass, an RNN's one head), each
/// row seeing the keys `mask` allows. Throws Error for an empty list, a tensor not of rank 3 or layers that differ in
/// their head count.
HeadEntropyMap headEntropyMap(
    const std::vector<Tensor>& attention, const MaskSpec& mask, const HeadActivityThresholds& thresholds = {});

} // namespace attn
