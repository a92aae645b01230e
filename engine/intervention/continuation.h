// SPDX-License-Identifier: MIT
#pragma once
// The greedy continuation of an input under an intervention, so the diff can show how the generated text changes.
#include "model/model.h"

#include <cstdint>
#include <vector>

namespace attn {

/// Up to `steps` greedy (first-maximum argmax) tokens after `tokens` with `options` (its intervention included),
/// ending after the token `stop` (when >= 0) and at the model's last position. Head and key masks act on each query
/// row alone, so later tokens step on the cache; edits (mean ablation, patching) are defined over the rows of a pass,
/// so each token then re-runs the whole sequence: a mean ablation stays the mean over the sequence so far.
std::vector<int64_t> greedyContinuation(
    const DecoderModel& model, std::vector<int64_t> tokens, int64_t steps, int64_t stop, const ForwardOptions& options);

} // namespace attn
