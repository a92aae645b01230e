// SPDX-License-Identifier: MIT
#pragma once
// The logit lens: what the residual stream predicts after 0, 1, ..., L layers, read out through the model's own final
// norm and unembedding; per position the top tokens of every layer and the probability, layer by layer, of the token
// the model finally predicts.
#include "intervention/layer_reuse.h"
#include "intervention/output_diff.h"

#include <cstdint>
#include <vector>

namespace attn {

struct LogitLens {
    /// Per position, the token the model finally predicts there (the argmax of its logits; ties: lower id).
    std::vector<int64_t> chosen;
    /// [layer 0..L][position]: the k most probable tokens read from the residual after that many layers (layer 0:
    /// the embeddings; layer L: the model's own output).
    std::vector<std::vector<std::vector<TopToken>>> top;
    /// [L + 1, positions]: the probability of `chosen` read after each number of layers.
    Tensor chosenProbability;
};

/// The logits [n, vocab] that `run`'s model reads out of `residual` [n, hidden] standing in for its last layer's
/// output residual. The last layer is re-run and its output replaced (an Intervention::editResidual), so every
/// family's own readout applies (final norm, output projection, soft-capping) without a second code path.
Tensor lensLogits(const ReusableRun& run, const Tensor& residual, const RerunHooks& hooks = {});

/// The lens of every layer of `run` (made with wantHiddenStates, as ReusableRun always is), `topK` tokens per row.
LogitLens logitLens(const ReusableRun& run, int64_t topK, const RerunHooks& hooks = {});

} // namespace attn
