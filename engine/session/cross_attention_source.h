// SPDX-License-Identifier: MIT
#pragma once
// A translation's cross-attention derived from what its decoder steps kept (ARCHITECTURE.md decision 2): the queries
// of every step and the encoding's keys, instead of each step's [layers, heads, S] probabilities.
#include "attention_source/attention_source.h"
#include "session/beam_search.h"

#include <memory>
#include <vector>

namespace attn {

/// The attention source over target steps [T] x source keys [S] of every decoder layer and head: stepQueries[t] is
/// BeamStepOutput::crossQueries [layers, heads, head dim] of step t. Rows equal the steps' crossAttention to 1e-6.
/// Tiles are computed on `backend` (kept alive by the source; null: the CPU attention core). Null for no steps;
/// throws Error when the steps' shapes differ from each other or from the keys.
std::shared_ptr<const AttentionSource> crossAttentionSource(
    const CrossKeys& keys, const std::vector<Tensor>& stepQueries, std::shared_ptr<Backend> backend = nullptr);

} // namespace attn
