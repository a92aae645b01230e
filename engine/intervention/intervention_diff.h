// SPDX-License-Identifier: MIT
#pragma once
// A list of head ablations applied together, and what they change against the unmodified pass: the GUI keeps one
// ReusableRun per input and diffs it again whenever the list changes (`attnscope-cli ablate` writes the same numbers).
#include "intervention/head_ablation.h"
#include "intervention/layer_reuse.h"
#include "intervention/output_diff.h"

#include <cstdint>
#include <vector>

namespace attn {

/// One intervention doing all of `ablations`: zero and scale entries multiply into one head mask (a head listed
/// twice gets both factors), mean-ablated heads share one head-output edit, which runs after the mask (a scaled and
/// mean-ablated head holds the mean of its scaled output). Throws Error for a head the model lacks.
Intervention combinedAblations(const std::vector<Ablation>& ablations, const ModelConfig& config);

struct InterventionDiff {
    Tensor cleanLogits; ///< [n, vocab]: the unmodified pass
    Tensor changedLogits; ///< [n, vocab]: under the intervention
    Tensor kl; ///< [n]: KL(clean || changed) of the next-token distributions, nats (klPerRow)
    std::vector<std::vector<TopToken>> cleanTop; ///< per position, the k most probable next tokens
    std::vector<std::vector<TopToken>> changedTop;
    std::vector<Tensor> cleanAttention; ///< per layer [heads, n, n]
    std::vector<Tensor> changedAttention;
    /// [layers, heads]: every head's change at once, the mean over query rows of the total variation distance
    /// 1/2 sum_j |changed - clean| of its attention row (0 unchanged, 1 disjoint).
    Tensor headChange;
};

/// InterventionDiff::headChange of per-layer attention [heads, n, keys] before and after; Error when shapes differ.
Tensor attentionChangePerHead(const std::vector<Tensor>& clean, const std::vector<Tensor>& changed);

/// `run`'s tokens under `intervention` against the unmodified pass, with the `topK` most probable tokens per position;
/// `hooks` report the re-run's layers and cancel it. `run` must have been made with wantAttention.
InterventionDiff diffIntervention(
    const ReusableRun& run, const Intervention& intervention, int64_t topK, const RerunHooks& hooks = {});

} // namespace attn
