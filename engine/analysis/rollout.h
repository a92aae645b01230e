// SPDX-License-Identifier: MIT
#pragma once
// Attention rollout and attention flow (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"):
// how much each input token reaches each output token through all layers, residual connections included.
#include "core/tensor.h"

#include <string>
#include <vector>

namespace attn {

enum class HeadFusion { Mean, Max, Min };

/// "mean", "max" or "min"; throws Error otherwise.
HeadFusion parseHeadFusion(const std::string& text);

struct RolloutOptions {
    HeadFusion fusion = HeadFusion::Mean;
    /// Fraction in [0, 1) of the smallest fused attention entries of each layer set to 0 before the residual is
    /// added (vit-explain's discard_ratio). The entry (protectedToken, protectedToken) is never dropped.
    double discardRatio = 0.0;
    int64_t protectedToken = 0; ///< the class token
};

/// One layer's residual-aware transition: heads fused ([heads, T, T] -> [T, T]), the lowest entries discarded,
/// then (A + I) / 2 with every row renormalized to sum 1. Throws Error on a bad shape or ratio.
Tensor rolloutLayerMatrix(const Tensor& layerAttention, const RolloutOptions& options);

/// Joint attention [T, T] = M_L ... M_2 M_1 over the layers' transition matrices (rolloutLayerMatrix): row q is
/// how output token q draws on the input tokens, and sums to 1. `attention` holds one [heads, T, T] per layer,
/// first layer first. Throws Error for an empty list or inconsistent shapes.
Tensor attentionRollout(const std::vector<Tensor>& attention, const RolloutOptions& options);

/// The largest token count attentionFlow accepts: it runs one max-flow per input token over a graph of
/// (layers + 1) * T nodes and layers * T^2 edges. ViT-B/16 at 224 px (197 tokens, 12 layers) measured ~14 CPU-seconds
/// (spread over up to 8 threads); the cost grows roughly with T^3, so larger inputs get an Error, not a long wait.
constexpr int64_t kAttentionFlowMaxTokens = 200;

/// Attention flow into output token `query` of the last layer: for every input token j, the max flow from j to
/// `query` through the layered graph whose edge capacities are the rolloutLayerMatrix entries (discardRatio is
/// honoured too), normalized to sum 1 over j, as Abnar & Zuidema's reference code does. Returns [T].
/// Throws Error beyond kAttentionFlowMaxTokens tokens, for a query outside [0, T) and for bad shapes.
Tensor attentionFlow(const std::vector<Tensor>& attention, int64_t query, const RolloutOptions& options);

} // namespace attn
