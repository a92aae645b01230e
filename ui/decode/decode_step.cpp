// SPDX-License-Identifier: MIT
#include "decode/decode_step.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn::ui {

NextTokenDistribution nextTokenDistribution(const float* logits, int64_t n, int64_t k)
{
    if (n <= 0) throw Error("next-token distribution: empty logits");
    NextTokenDistribution d;
    d.probabilities.assign(logits, logits + n);
    const float maxValue = *std::max_element(d.probabilities.begin(), d.probabilities.end());
    double sum = 0.0;
    for (float& p : d.probabilities) {
        p = std::exp(p - maxValue);
        sum += p;
    }
    double entropy = 0.0;
    for (float& p : d.probabilities) {
        p = static_cast<float>(p / sum);
        if (p > 0.0f) entropy -= static_cast<double>(p) * std::log2(static_cast<double>(p));
    }
    d.entropyBits = static_cast<float>(entropy);
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

} // namespace attn::ui
