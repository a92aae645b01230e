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
#include <vector>

namespace attn {

struct ForwardOptions;

/// One query head of one layer.
struct HeadRef {
    int64_t layer = 0;
    int64_t head = 0;
    bool operator==(const HeadRef&) const = default;
};

/// Key positions hidden from some heads: like padding, they get exactly zero attention and each query row's
/// softmax renormalises over the keys it still sees (a row left with no key gets zero attention and a zero output).
/// Every query, including those of later decode steps, is affected.
struct KeyMask {
    std::vector<int64_t> positions; ///< absolute key positions; those past the end of a pass change nothing
    std::vector<HeadRef> heads; ///< the query heads that lose them; empty: every head of every layer
};

struct Intervention {
    /// Empty, or [layers, heads] with HF head_mask semantics: entry (l, h) multiplies the post-softmax probabilities
    /// of query head h in layer l (1 keeps, 0 removes, other values scale), so it scales that head's output before
    /// the output projection (whose bias stays) and the captured attention is the multiplied one. Encoder-decoders
    /// stack their encoder, decoder and cross-attention layers as its rows (Seq2SeqHeadRows).
    Tensor headMask;
    /// Changes the merged head outputs [n, heads * value_dim] of `layer` in place, after the head mask and before
    /// the output projection (mean ablation, head patching). Decoders only.
    std::function<void(int64_t layer, Tensor& heads)> editHeads;
    /// Changes the residual stream [n, hidden] after `layer` in place (residual patching). Decoders only.
    std::function<void(int64_t layer, Tensor& residual)> editResidual;
    /// The first layer editHeads / editResidual change (0 unless the author knows better): what a re-run from a
    /// kept clean pass may skip (firstChangedLayer).
    int64_t editsFromLayer = 0;
    std::vector<KeyMask> keyMasks;
};

/// Throws Error unless the head mask of `options` is empty or [layers, heads] with finite entries, and when it has
/// edits for a family that does not apply them (`edits` false).
void checkIntervention(const ForwardOptions& options, int64_t layers, int64_t heads, bool edits = true);

/// The head mask's row of `layer` (empty without one): what the attention ops take as their head scale.
std::span<const float> headScaleRow(const ForwardOptions& options, int64_t layer);

/// `base` with the head scale of `layer` (for models that keep one AttentionOptions for all layers).
AttentionOptions withHeadScale(AttentionOptions base, const ForwardOptions& options, int64_t layer);

/// Empty when no key mask of `options` touches `layer`; otherwise the keep mask [heads, n, keys] (1 visible,
/// 0 hidden) of n query rows over `keys` positions, the same for every row: AttentionOptions::mask.keepMask.
Tensor keyKeepMask(const ForwardOptions& options, int64_t layer, int64_t heads, int64_t n, int64_t keys);

/// The lowest layer whose computation `intervention` changes (`layers` when it changes none): the layers below it
/// run exactly as without it.
int64_t firstChangedLayer(const Intervention& intervention, int64_t layers);

/// Runs Intervention::editHeads on `heads` when set (a device stream reads the value back and writes it again).
void editHeads(Stream& s, const ForwardOptions& options, int64_t layer, const Value& heads);

/// Runs Intervention::editResidual on `residual` when set.
void editResidual(Stream& s, const ForwardOptions& options, int64_t layer, const Value& residual);

} // namespace attn
