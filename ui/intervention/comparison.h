// SPDX-License-Identifier: MIT
#pragma once
// What the Compare tab shows, computed on the engine thread: reading a head of a long input derives it from the
// stored queries and keys (2,048 tokens: seconds), which the GUI thread must never wait for.
#include "model/attention_snapshot.h"

#include <memory>
#include <vector>

namespace attn::ui {

/// Which patterns of the two runs are compared.
struct CompareSelection {
    bool headMeans = false; ///< each side is its layer's mean over heads (the heads are ignored)
    int64_t layer[2] = {}, head[2] = {}; ///< side A, side B (clamped to each run's layers and heads)
    bool ratio = false; ///< the third map is log2((B + 0.001) / (A + 0.001)) instead of B − A
};

struct Comparison {
    /// A and B as drawn ([rows, cols], labelled by their runs' tokens) and the third map; all null when the
    /// patterns are bidirectional and of different sizes (they cannot be compared row by row).
    SnapshotPtr a, b, third;
    int64_t sizeA[2] = {}, sizeB[2] = {}; ///< each whole pattern's [queries, keys]
    int64_t rows = 0; ///< compared query rows: causal rows are whole distributions, so two prompts share a prefix
    std::vector<double> js; ///< JS(A row, B row) in nats, per compared row
    bool comparable() const { return a != nullptr; }
};
using ComparisonPtr = std::shared_ptr<const Comparison>;

/// The selection's patterns of `runA` and `runB` (the same run for two heads or layers), their third map and JS.
ComparisonPtr computeComparison(
    const AttentionSnapshot& runA, const AttentionSnapshot& runB, const CompareSelection& s);

} // namespace attn::ui
