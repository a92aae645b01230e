// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"
#include "session/decode_step.h"

#include <vector>

namespace attn::ui {

/// Every layer's attention over the first `positions` steps ([heads, n, n] per layer, the rows of the steps), as the
/// decode heatmap shows it. Throws Error when fewer steps are given.
SnapshotPtr decodeSnapshot(const std::vector<DecodeStepPtr>& steps, const DecodeModelInfo& info, int64_t positions);

} // namespace attn::ui
