// SPDX-License-Identifier: MIT
#include "model/moe_routing.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace attn {

Tensor routeTopK(const Tensor& logits, int64_t k)
{
    if (logits.rank() != 2) throw Error("routeTopK: router logits must be [tokens, experts]");
    const int64_t n = logits.dim(0), experts = logits.dim(1);
    if (k < 1 || k > experts)
        throw Error("routeTopK: " + std::to_string(k) + " experts per token out of " + std::to_string(experts));
    Tensor weights({ n, experts });
    std::vector<float> probs(static_cast<size_t>(experts));
    std::vector<int64_t> order(static_cast<size_t>(experts));
    for (int64_t t = 0; t < n; ++t) {
        const float* row = logits.data() + t * experts;
        const float top = *std::max_element(row, row + experts);
        float sum = 0.0f;
        for (int64_t e = 0; e < experts; ++e)
            sum += probs[static_cast<size_t>(e)] = std::exp(row[e] - top);
        for (float& p : probs)
            p /= sum;
        std::iota(order.begin(), order.end(), 0);
        // torch.topk order: larger first; equal probabilities keep the lower expert index.
        std::stable_sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return probs[static_cast<size_t>(a)] > probs[static_cast<size_t>(b)]; });
        float kept = 0.0f;
        for (int64_t i = 0; i < k; ++i)
            kept += probs[static_cast<size_t>(order[static_cast<size_t>(i)])];
        for (int64_t i = 0; i < k; ++i) {
            const int64_t e = order[static_cast<size_t>(i)];
            weights.data()[t * experts + e] = probs[static_cast<size_t>(e)] / kept;
        }
    }
    return weights;
}

Tensor expertGate(const Tensor& weights, int64_t expert, int64_t width, bool* used)
{
    const int64_t n = weights.dim(0), experts = weights.dim(1);
    Tensor gate({ n, width });
    *used = false;
    for (int64_t t = 0; t < n; ++t) {
        const float w = weights.data()[t * experts + expert];
        *used = *used || w != 0.0f;
        std::fill(gate.data() + t * width, gate.data() + (t + 1) * width, w);
    }
    return gate;
}

} // namespace attn
