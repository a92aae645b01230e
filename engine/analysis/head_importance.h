// SPDX-License-Identifier: MIT
#pragma once
// Head importance (the drop in the log-probability of the actual next tokens when a head is removed) and greedy
// pruning by least importance, for decoders. `attnscope-cli prune` and the GUI's Pruning tab both call these.
#include "core/tensor.h"
#include "intervention/head_ablation.h"
#include "intervention/layer_reuse.h"
#include "model/model.h"

#include <cstdint>
#include <vector>

namespace attn {

/// What one set of passes predicts of the actual next tokens, pooled over every predicted position of every input
/// (n - 1 per input of n tokens).
struct NextTokenScore {
    double logProb = 0.0; ///< mean log-probability (nats)
    double accuracy = 0.0; ///< share of positions whose most likely token (first on ties) is the actual next one
    int64_t copyPositions = 0; ///< predicted positions where the next token copies an earlier one (copyPositions())
    /// The induction-copy task: accuracy over the copyPositions alone (NaN when there are none).
    double copyAccuracy = 0.0;
};

/// `base` for the passes of importance and pruning: logits only (no attention, hidden states, queries and keys, nor
/// base's intervention), progress left to the caller (it counts passes, not layers), cancelled by
/// hooks.cancelRequested where set.
ForwardOptions scoringOptions(const ForwardOptions& base, const RerunHooks& hooks);

/// The score of `inputs` under `headMask` (empty: none). Throws Error when no input has two tokens.
NextTokenScore nextTokenScore(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& headMask, const ForwardOptions& base);

/// nextTokenScore(...).logProb.
double meanNextTokenLogProb(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& headMask, const ForwardOptions& base);

/// [layers, heads]: meanNextTokenLogProb(unmodified) - meanNextTokenLogProb(head removed). *unmodified receives the
/// first term when not null. hooks.layerDone gets (passes done, inputs x (1 + heads)) after each pass, and
/// hooks.cancelRequested is polled inside them; either stops it with Cancelled.
Tensor headImportance(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const ForwardOptions& base, double* unmodified = nullptr, const RerunHooks& hooks = {});

struct PruningCurve {
    std::vector<HeadRef> order; ///< heads in the order they are removed (least important first)
    std::vector<double> removedShare; ///< [k] = k / heads, k = 0 .. heads
    std::vector<double> loss; ///< [k] = mean next-token loss (nats) with the first k heads of `order` removed
    std::vector<double> accuracy; ///< [k] = next-token accuracy (NextTokenScore::accuracy) with them removed
    int64_t copyPositions = 0; ///< NextTokenScore::copyPositions of the inputs
    /// [k] = induction-copy accuracy (NextTokenScore::copyAccuracy) with them removed; empty when copyPositions is 0.
    std::vector<double> copyAccuracy;
};

/// Every head of `importance` [layers, heads] in ascending importance (ties: lower layer, then lower head first): the
/// order greedy pruning removes them in.
std::vector<HeadRef> pruningOrder(const Tensor& importance);

/// Removes heads one at a time in pruningOrder(importance) and records the loss and accuracy after each removal. hooks
/// as headImportance's, over (heads + 1) x inputs passes.
PruningCurve greedyPruning(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& importance, const ForwardOptions& base, const RerunHooks& hooks = {});

} // namespace attn
