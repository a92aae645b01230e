// SPDX-License-Identifier: MIT
#include "session/decode_step.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>

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
    // The k most likely in one pass, kept sorted by insertion (k is a handful, the vocabulary tens of thousands:
    // a partial sort of an index array over the whole vocabulary cost a small model a tenth of its decode step).
    const auto top = static_cast<size_t>(std::clamp<int64_t>(k, 0, n));
    const auto before = [&](int64_t a, int64_t b) {
        const float pa = d.probabilities[static_cast<size_t>(a)], pb = d.probabilities[static_cast<size_t>(b)];
        return pa > pb || (pa == pb && a < b);
    };
    d.topIds.reserve(top + 1);
    for (int64_t id = 0; id < n && top > 0; ++id) {
        if (d.topIds.size() == top && !before(id, d.topIds.back())) continue;
        if (d.topIds.size() == top) d.topIds.pop_back();
        d.topIds.insert(std::upper_bound(d.topIds.begin(), d.topIds.end(), id, before), id);
    }
    return d;
}

} // namespace attn
