// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"
#include "session/decode_step.h"

#include <vector>

namespace attn::ui {

/// One step's attention row of every head, per layer [heads, keys] (the Decode tab's strip).
using StepRowsPtr = std::shared_ptr<const std::vector<Tensor>>;

/// Row `position` of every layer and head of `source`, per layer [heads, numKeys]: the strip of a step that captured
/// no rows. Throws Error for a position outside the source.
StepRowsPtr derivedStepRows(const AttentionSource& source, int64_t position);

/// Every layer's attention over the first `positions` steps, as the decode heatmap shows it: read through `derived`
/// (DecodeTimeline::derivedAttention of those steps: no matrix is held) when given, else assembled from the steps'
/// captured rows ([heads, n, n] per layer). Throws Error when fewer steps are given, `derived` has another length, or
/// without `derived` a step keeps no rows.
SnapshotPtr decodeSnapshot(const std::vector<DecodeStepPtr>& steps, const DecodeModelInfo& info, int64_t positions,
    std::shared_ptr<const AttentionSource> derived = nullptr);

} // namespace attn::ui
