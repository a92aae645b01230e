// SPDX-License-Identifier: MIT
#pragma once
// Sparse mixture-of-experts routing (Mixtral): which experts each token goes to, with what weight.
#include "core/tensor.h"

#include <cstdint>
#include <vector>

namespace attn {

/// HF MixtralSparseMoeBlock's gate: softmax of each row of the router logits [n, experts] over all experts, the
/// top k kept and renormalised to sum 1. Returns [n, experts] weights, 0 for the experts a token does not use.
/// Throws Error for k outside 1..experts.
Tensor routeTopK(const Tensor& routerLogits, int64_t k);

/// Column `expert` of the routing weights [n, experts] broadcast over `width` features -> [n, width]; false in
/// *used when no token chose the expert (its output is then all zeros and need not be computed).
Tensor expertGate(const Tensor& weights, int64_t expert, int64_t width, bool* used);

} // namespace attn
