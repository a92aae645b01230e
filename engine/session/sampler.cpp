// SPDX-License-Identifier: MIT
#include "session/sampler.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

int64_t argmax(const float* values, int64_t n) {
    int64_t best = 0;
    for (int64_t i = 1; i < n; ++i)
        if (values[i] > values[best]) best = i;
    return best;
}

Sampler::Sampler(SamplerOptions options)
    : m_options(options)
    , m_state(options.seed) {
    if (options.temperature < 0.0f || !std::isfinite(options.temperature))
        throw Error("temperature must be >= 0, got " + std::to_string(options.temperature));
    if (options.topK < 0) throw Error("top-k must be >= 0, got " + std::to_string(options.topK));
    if (options.temperature > 0.0f && options.seed == 0) throw Error("sampling needs a nonzero seed");
}

uint32_t Sampler::randomU32() {
    m_state ^= m_state >> 12;
    m_state ^= m_state << 25;
    m_state ^= m_state >> 27;
    return static_cast<uint32_t>((m_state * 0x2545F4914F6CDD1Dull) >> 32);
}

float Sampler::randomF32() {
    return static_cast<float>(randomU32() >> 8) / 16777216.0f;
}

int64_t Sampler::sample(const float* logits, int64_t n) {
    if (n <= 0) throw Error("sample: empty logits");
    if (m_options.temperature == 0.0f || n == 1) return argmax(logits, n);
    // run.c: logits / temperature, then a float softmax with the max subtracted.
    m_probs.assign(logits, logits + n);
    for (float& p : m_probs)
        p /= m_options.temperature;
    if (m_options.topK > 0 && m_options.topK < n) {
        std::vector<float> sorted(m_probs);
        std::nth_element(sorted.begin(), sorted.begin() + (m_options.topK - 1), sorted.end(), std::greater<float>());
        const float kth = sorted[static_cast<size_t>(m_options.topK - 1)];
        for (float& p : m_probs)
            if (p < kth) p = -std::numeric_limits<float>::infinity();
    }
    float maxVal = m_probs[0];
    for (int64_t i = 1; i < n; ++i)
        if (m_probs[static_cast<size_t>(i)] > maxVal) maxVal = m_probs[static_cast<size_t>(i)];
    float sum = 0.0f;
    for (float& p : m_probs) {
        p = std::exp(p - maxVal);
        sum += p;
    }
    for (float& p : m_probs)
        p /= sum;
    const float coin = randomF32();
    if (m_options.topP <= 0.0f || m_options.topP >= 1.0f) return sampleMult(coin);
    return sampleTopP(coin);
}

int64_t Sampler::sampleMult(float coin) const {
    float cdf = 0.0f;
    const auto n = static_cast<int64_t>(m_probs.size());
    for (int64_t i = 0; i < n; ++i) {
        cdf += m_probs[static_cast<size_t>(i)];
        if (coin < cdf) return i;
    }
    return n - 1; // rounding
}

int64_t Sampler::sampleTopP(float coin) {
    const float topP = m_options.topP;
    const auto n = static_cast<int64_t>(m_probs.size());
    // Probabilities below (1 - topp) / (n - 1) can never be in the nucleus: crop them before sorting (run.c).
    const float cutoff = (1.0f - topP) / static_cast<float>(n - 1);
    m_candidates.clear();
    for (int64_t i = 0; i < n; ++i)
        if (m_probs[static_cast<size_t>(i)] >= cutoff) m_candidates.push_back({ m_probs[static_cast<size_t>(i)], i });
    // glibc's qsort is a stable merge sort for arrays this small, so ties keep index order as in run.c.
    std::stable_sort(m_candidates.begin(), m_candidates.end(),
        [](const ProbIndex& a, const ProbIndex& b) { return a.prob > b.prob; });
    float cumulative = 0.0f;
    auto last = static_cast<int64_t>(m_candidates.size()) - 1;
    for (int64_t i = 0; i < static_cast<int64_t>(m_candidates.size()); ++i) {
        cumulative += m_candidates[static_cast<size_t>(i)].prob;
        if (cumulative > topP) {
            last = i;
            break;
        }
    }
    const float r = coin * cumulative;
    float cdf = 0.0f;
    for (int64_t i = 0; i <= last; ++i) {
        cdf += m_candidates[static_cast<size_t>(i)].prob;
        if (r < cdf) return m_candidates[static_cast<size_t>(i)].index;
    }
    return m_candidates[static_cast<size_t>(last)].index; // rounding
}

} // namespace attn
