// SPDX-License-Identifier: MIT
#pragma once
// What a forward pass changes inside the model, for the experiments that test what attention heads do (ablation,
// patching, pruning). The models apply it through the helpers below, one call at each place a change can happen.
#include "attention/attention.h"
#include "backend/stream.h"
#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace attn {

struct ForwardOptions;

struct Intervention {
    /// Empty, or [layers, heads] with HF head_mask semantics: entry (l, h) multiplies the post-softmax probabilities
    /// of query head h in layer l (1 keeps, 0 removes, other values scale), so it scales that head's output before
    /// the output projection (whose bias stays) and the captured attention is the multiplied one.
    Tensor headMask;
    /// Changes the merged head outputs [n, heads * value_dim] of `layer` in place, after the head mask and before
    /// the output projection (mean ablation, head patching). Decoders only.
    std::function<void(int64_t layer, Tensor& heads)> editHeads;
    /// Changes the residual stream [n, hidden] after `layer` in place (residual patching). Decoders only.
    std::function<void(int64_t layer, Tensor& residual)> editResidual;
};

/// Throws Error unless the head mask of `options` is empty or [layers, heads] with finite entries, and when it has
/// edits for a family that does not apply them (`edits` false).
void checkIntervention(const ForwardOptions& options, int64_t layers, int64_t heads, bool edits = true);

/// Throws Error when `options` carries an intervention: for the families that do not apply them yet.
void expectNoIntervention(const ForwardOptions& options, const std::string& family);

/// The head mask's row of `layer` (empty without one): what the attention ops take as their head scale.
std::span<const float> headScaleRow(const ForwardOptions& options, int64_t layer);

/// `base` with the head scale of `layer` (for models that keep one AttentionOptions for all layers).
AttentionOptions withHeadScale(AttentionOptions base, const ForwardOptions& options, int64_t layer);

/// Runs Intervention::editHeads on `heads` when set (a device stream reads the value back and writes it again).
void editHeads(Stream& s, const ForwardOptions& options, int64_t layer, const Value& heads);

/// Runs Intervention::editResidual on `residual` when set.
void editResidual(Stream& s, const ForwardOptions& options, int64_t layer, const Value& residual);

} // namespace attn
