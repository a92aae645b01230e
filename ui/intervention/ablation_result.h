// SPDX-License-Identifier: MIT
#pragma once
// One diff of the Intervene tab: a list of ablations against the unmodified pass of the main input.
#include "intervention/intervention_diff.h"
#include "intervention/kept_run.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace attn::ui {

struct AblationResult {
    std::vector<Ablation> ablations; ///< applied together (combinedAblations)
    std::vector<int64_t> tokens;
    InterventionDiff diff;
    /// Greedy tokens after the input, unmodified and under the ablations (the same list when there are none).
    std::vector<int64_t> cleanContinuation, changedContinuation;
    std::unordered_map<int64_t, std::string> text; ///< the text of every token id in `tokens` and the top lists
};
using AblationResultPtr = std::shared_ptr<const AblationResult>;

/// Tokens of the continuations a diff shows.
constexpr int64_t kContinuationTokens = 12;

/// On the engine thread: the diff of `ablations` on `kept`, five top tokens per position, and both continuations.
AblationResultPtr computeAblation(const KeptRun& kept, const std::vector<Ablation>& ablations, const RerunHooks& hooks);

} // namespace attn::ui
