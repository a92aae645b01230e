// SPDX-License-Identifier: MIT
#include "session/decode_step.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {

NextTokenDistribution nextTokenDistribution(const float* logits, int64_t n, int64_t k)
{
    if (n <= 0) throw Error("next-token distribution: empty logits");
    NextTokenDistribution d;
    d.probabilities.assign(logits, logits + n);
    const float maxValue = *std::max_element(d.probabilities.begin(), d.probabilities.end());
    // With z = logit - max and S = sum exp(z): entropy = log S - sum p z, so no logarithm per token (a log per
    // vocabulary entry was most of this function's cost at every decode step).
    double sum = 0.0, weighted = 0.0;
    for (float& p : d.probabilities) {
        const float z = p - maxValue;
        p = std::exp(z);
        sum += p;
        if (p > 0.0f) weighted += static_cast<double>(p) * z; // a masked (-inf) logit adds nothing, not NaN
    }
    for (float& p : d.probabilities)
        p = static_cast<float>(p / sum);
    d.entropyBits = static_cast<float>((std::log(sum) - weighted / sum) / std::log(2.0));
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    const auto top = static_cast<size_t>(std::clamp<int64_t>(k, 0, n));
    std::partial_sort(
        order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(), [&](int64_t a, int64_t b) {
            const float pa = d.probabilities[static_cast<size_t>(a)], pb = d.probabilities[static_cast<size_t>(b)];
            return pa > pb || (pa == pb && a < b);
        });
    order.resize(top);
    d.topIds = std::move(order);
    return d;
}

} // namespace attn
