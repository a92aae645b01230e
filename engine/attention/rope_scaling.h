// SPDX-License-Identifier: MIT
#pragma once
// RoPE scaling (config.json rope_scaling) as transformers computes it: linear, dynamic NTK, Llama 3.1, longrope and
// YaRN.
#include "attention/rope.h"
#include "model/model_config.h"

#include <cstdint>

namespace attn {

/// The rotation `config` applies in a forward pass over positions 0 .. sequenceLength - 1, for heads whose first
/// rotaryDims dims rotate:
/// - none: plain RoPE with rope_theta;
/// - linear: every inv_freq divided by factor (positions / factor);
/// - dynamic (NTK): once sequenceLength exceeds max_position_embeddings, the base becomes
///   theta * (factor * len / max - (factor - 1))^(dims / (dims - 2)) for every position of that forward;
/// - llama3: the Llama 3.1 bands (wavelength below orig / high_freq_factor kept, above orig / low_freq_factor divided
///   by factor, smooth blend between), as transformers' _compute_llama3_parameters;
/// - longrope: inv_freq_i / ext_i with ext = long_factor once sequenceLength exceeds
///   original_max_position_embeddings, else short_factor; cos and sin times the attention factor;
/// - rope_freqs (GGUF): inv_freq_i divided by the file's factor f_i;
/// - yarn: transformers' _compute_yarn_parameters: with d(r) = dims * ln(orig / (2 pi r)) / (2 ln theta), the ramp
///   r_i = clamp((i - low) / (high - low), 0, 1) over low = max(floor d(beta_fast), 0), high = min(ceil d(beta_slow),
///   dims - 1) (no floor / ceil with truncate false), inv_freq_i = inv_freq_i / factor * r_i + inv_freq_i * (1 - r_i);
///   cos and sin times attention_factor, by default 0.1 ln(factor) + 1 (mscale / mscale_all_dim: the ratio of
///   0.1 m ln(factor) + 1 for the two).
/// A forward with a KV cache passes the length it reaches: like transformers' cache, earlier keys keep the rotation
/// they were computed with. Throws Error naming config.source for factor lists that do not fit rotaryDims.
RotaryEmbedding rotaryEmbedding(const ModelConfig& config, int64_t rotaryDims, int64_t sequenceLength);

/// Whether the rotation changes with the sequence length (dynamic, longrope).
bool rotaryDependsOnLength(const RopeScaling& scaling);

} // namespace attn
