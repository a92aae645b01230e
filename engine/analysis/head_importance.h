// SPDX-License-Identifier: MIT
#pragma once
// Head importance (the drop in the log-probability of the actual next tokens when a head is removed) and greedy
// pruning by least importance, for decoders.
#include "core/tensor.h"
#include "intervention/head_ablation.h"
#include "model/model.h"

#include <cstdint>
#include <vector>

namespace attn {

/// Mean log-probability (nats) of each input's actual next tokens, pooled over every predicted position of every
/// input (n - 1 per input of n tokens), under `headMask` (empty: none). Throws Error when no input has two tokens.
double meanNextTokenLogProb(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& headMask, const ForwardOptions& base);

/// [layers, heads]: meanNextTokenLogProb(unmodified) - meanNextTokenLogProb(head removed). *unmodified receives the
/// first term when not null.
Tensor headImportance(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const ForwardOptions& base, double* unmodified = nullptr);

struct PruningCurve {
    std::vector<HeadRef> order; ///< heads in the order they are removed (least important first)
    std::vector<double> removedShare; ///< [k] = k / heads, k = 0 .. heads
    std::vector<double> loss; ///< [k] = mean next-token loss (nats) with the first k heads of `order` removed
};

/// Removes heads one at a time in ascending importance (ties: lower layer, then lower head first) and records the
/// loss after each removal.
PruningCurve greedyPruning(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& importance, const ForwardOptions& base);

} // namespace attn
