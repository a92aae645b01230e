// SPDX-License-Identifier: MIT
#pragma once
// Next-token choice. Greedy, temperature, top-p and the xorshift generator reproduce llama2.c run.c exactly, so a
// seeded run matches run.c token for token; top-k (not in run.c) filters before the softmax.
#include <cstdint>
#include <vector>

namespace attn {

struct SamplerOptions {
    float temperature = 0.0f; ///< 0 = greedy argmax (first maximum)
    float topP = 0.9f; ///< nucleus threshold; <= 0 or >= 1 samples from the full distribution (run.c's default 0.9)
    int64_t topK = 0; ///< > 0: only the k largest logits can be drawn
    uint64_t seed = 0; ///< xorshift state; 0 is not a valid state (callers pick a time-based seed, as run.c)
};

class Sampler {
public:
    explicit Sampler(SamplerOptions options);
    const SamplerOptions& options() const { return m_options; }

    /// The next token id from logits [n].
    int64_t sample(const float* logits, int64_t n);

    /// The generator's state: restoring an earlier one makes the following draws repeat (decoding rewound).
    uint64_t state() const { return m_state; }
    void restoreState(uint64_t state) { m_state = state; }

    /// run.c's xorshift64* generator.
    uint32_t randomU32();
    /// [0, 1) with 24 random bits, as run.c.
    float randomF32();

private:
    struct ProbIndex {
        float prob;
        int64_t index;
    };
    int64_t sampleMult(float coin) const;
    int64_t sampleTopP(float coin);

    SamplerOptions m_options;
    uint64_t m_state;
    std::vector<float> m_probs;
    std::vector<ProbIndex> m_candidates;
};

/// Index of the first maximum (run.c argmax).
int64_t argmax(const float* values, int64_t n);

} // namespace attn
