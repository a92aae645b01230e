// SPDX-License-Identifier: MIT
#pragma once
// The seeded random numbers of the mechanisms (synthetic inputs, projections, features, random blocks). SplitMix64 is
// a few lines of integer arithmetic, so a test can replay a stream in NumPy and check what a seed must produce.
#include <cstdint>

namespace attn {

class RandomStream {
public:
    explicit RandomStream(uint64_t seed)
        : m_state(seed)
    {
    }
    /// SplitMix64 (Steele, Lea and Flood 2014): state += 0x9E3779B97F4A7C15, then the finalizer.
    uint64_t nextU64();
    /// Uniform in [0, 1) with 53 random bits.
    double uniform();
    /// Standard normal by Box-Muller from two uniforms (one value per call; the sine branch is not kept).
    double normal();
    /// Uniform integer in [0, n) as nextU64() % n (n > 0; the bias is below 2^-40 for the sizes used here).
    uint64_t below(uint64_t n) { return nextU64() % n; }
    /// Moves the stream on by `count` numbers at once, as `count` calls of nextU64 would: the state is a counter.
    void skip(uint64_t count) { m_state += count * kGamma; }

private:
    static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull; ///< SplitMix64's increment
    uint64_t m_state;
};

/// Independent streams for the parts of one mechanism drawn from one user seed (seed, salt) -> stream seed.
uint64_t subSeed(uint64_t seed, uint64_t salt);

} // namespace attn
