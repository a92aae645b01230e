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
    const float maxValue = *std::max_element(logits, logits + n);
    // The exps alone first: nothing else is live across the calls into libm, so no sum is kept on the stack per call.
    d.probabilities.resize(static_cast<size_t>(n));
    float* const p = d.probabilities.data();
    for (int64_t i = 0; i < n; ++i)
        p[i] = std::exp(logits[i] - maxValue);
    // With z = logit - max and S = sum exp(z): entropy = log S - sum p z, so no logarithm per token (a log per
    // vocabulary entry was most of this function's cost at every decode step). Summed in index order, as always.
    double sum = 0.0, weighted = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        sum += p[i];
        if (p[i] > 0.0f) weighted += static_cast<double>(p[i]) * (logits[i] - maxValue); // -inf adds nothing, not NaN
    }
    for (int64_t i = 0; i < n; ++i)
        p[i] = static_cast<float>(p[i] / sum);
    d.entropyBits = static_cast<float>((std::log(sum) - weighted / sum) / std::log(2.0));
    // The k most likely in one pass, kept sorted by insertion (k is a handful, the vocabulary tens of thousands:
    // a partial sort of an index array over the whole vocabulary cost a small model a tenth of its decode step).
    const auto top = static_cast<size_t>(std::clamp<int64_t>(k, 0, n));
    const auto before = [&](int64_t a, int64_t b) { return p[a] > p[b] || (p[a] == p[b] && a < b); };
    std::vector<int64_t>& ids = d.topIds;
    ids.reserve(top + 1);
    const auto insert = [&](int64_t id) { ids.insert(std::upper_bound(ids.begin(), ids.end(), id, before), id); };
    int64_t id = 0;
    for (; id < n && ids.size() < top; ++id)
        insert(id);
    // Ids come in increasing order, so once k are kept a later id goes before the last kept one only with a larger
    // probability: the rest of the vocabulary is passed over on one comparison each with the last kept probability.
    for (float last = top > 0 ? p[ids.back()] : 0.0f; id < n && top > 0; ++id) {
        if (!(p[id] > last)) continue;
        ids.pop_back();
        insert(id);
        last = p[ids.back()];
    }
    return d;
}

} // namespace attn
