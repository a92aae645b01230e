// SPDX-License-Identifier: MIT
#pragma once
// Weight-reading helpers the HF decoder loaders share: the norm conventions and row slices of fused projections.
#include "model/llama_model.h"
#include "model/weight_reader.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

enum class NormStyle {
    Rms, ///< weight
    RmsPlusOne, ///< gemma: stores w of (1 + w)
    Layer, ///< weight and bias
    LayerWithoutParameters, ///< olmo / opt without elementwise affine: nothing stored, ones and zeros
};

/// The norm `name` (prefix of .weight / .bias) of width `dim` in `style`, as NormWeights.
NormWeights takeNorm(WeightReader& r, const std::string& name, int64_t dim, NormStyle style);

/// `<attn>q_proj`, k_proj, v_proj and `<attn><out>` (.weight, and .bias where asked) of a layer with config's
/// heads, KV heads and head dim into lw.
void takeAttentionProjections(WeightReader& r, const ModelConfig& c, const std::string& attn, const std::string& out,
    bool qkvBias, bool outBias, LlamaLayerWeights& lw);

/// A plain MLP's `up` [intermediate, hidden] and `down` [hidden, intermediate] (.weight, .bias where asked) into lw.
void takePlainFeedForward(WeightReader& r, const ModelConfig& c, const std::string& up, const std::string& down,
    bool bias, LlamaLayerWeights& lw);

/// The LM head `name` [vocab, hidden] into w.lmHead, or skipped when the config ties it to the embedding (HF ties
/// it even when a copy is stored).
void takeLmHead(WeightReader& r, const ModelConfig& c, const std::string& name, LlamaWeights& w);

} // namespace attn
