// SPDX-License-Identifier: MIT
#pragma once
// The statistics and thumbnail of every head of a forward pass, gathered from the probabilities the pass computes
// anyway (ForwardOptions::observeAttention): a run that stores no attention then needs no second pass over each head
// before the all-heads grid and the statistics table can be drawn.
#include "analysis/head_stats.h"
#include "attention/attention.h"
#include "attention_source/overview.h"

#include <cstdint>
#include <vector>

namespace attn {

class AttentionSource;

class SummaryCollector {
public:
    /// For a pass over `numQueries` new positions of an empty session (so every row has numQueries keys), whose
    /// structural mask is `mask`. Throws Error on non-positive sizes.
    SummaryCollector(int64_t layers, int64_t heads, int64_t numQueries, MaskSpec mask);

    /// Rows [query, query + rows) of one head, [rows, numQueries]: what ForwardOptions::observeAttention is called
    /// with. Rows of a head must come in order; a head whose rows do not (or that is never observed) is left out.
    void add(int64_t layer, int64_t head, int64_t query, int64_t rows, const float* probs);
    /// Gives `source` every head observed whole (AttentionSource::adoptSummary); returns how many.
    int64_t deliver(const AttentionSource& source) const;

private:
    struct Head {
        HeadStatsAccumulator stats;
        OverviewBuilder thumbnail;
        int64_t nextRow = 0;
        bool broken = false;
    };
    int64_t m_heads, m_numQueries;
    MaskSpec m_mask;
    std::vector<Head> m_summaries; ///< [layer * heads + head]
};

} // namespace attn
