// SPDX-License-Identifier: MIT
#pragma once
// config.json fields the rotary decoder families share.
#include "model/config_fields.h"
#include "model/model_config.h"

namespace attn::families {

/// The Llama-style fields (num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size, head_dim,
/// intermediate_size, vocab_size, max_position_embeddings, rope_theta, partial_rotary_factor, rope_scaling,
/// rms_norm_eps, hidden_act, tie_word_embeddings) of a causal decoder with rotate-half RoPE.
void readRotaryDecoder(const ConfigFields& f, ModelConfig& c);

/// rope_scaling (null or absent: none): linear, dynamic, llama3, longrope (alias su) or yarn; anything else is refused
/// naming the file, rather than computed wrongly.
void readRopeScaling(const ConfigFields& f, ModelConfig& c);

} // namespace attn::families
