// SPDX-License-Identifier: MIT
#pragma once
// The Intervene tab's heatmap of one head: its ablated minus its unmodified attention. A 2,048-token head is 4M
// cells, so it is built on the engine thread (with the diff for the head selected then, or on its own for a new
// head), never on the GUI thread.
#include "intervention/ablation_result.h"
#include "model/attention_snapshot.h"

#include <cstdint>

namespace attn::ui {

struct AttentionDifference {
    SnapshotPtr snapshot; ///< one head, causal: ablated − unmodified
    int64_t layer = 0; ///< the head shown (the one asked for, clamped to the model)
    int64_t head = 0;
    bool unchanged = false; ///< every cell is zero (a mean ablation leaves its head's own attention alone)
};

/// Head (layer, head) of `result`, clamped to its layers and heads; an empty snapshot when it holds no attention.
AttentionDifference attentionDifference(const AblationResult& result, int64_t layer, int64_t head);

} // namespace attn::ui
