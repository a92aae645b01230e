// SPDX-License-Identifier: MIT
// The eight-lane SiLU of the feed-forward layers against the exact SiLU (double precision), at every tail of the
// eight lanes, with a stated ulp bound that does not depend on the CPU (the same AVX2 instructions run on AVX2-only
// and AVX-512 CPUs).
#include "model/silu_avx2.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace attn {
namespace {

constexpr float kSentinel = 12345.0f;

/// The float ulp at |x| (the spacing of floats there; the smallest normal's below it).
double ulpAt(double x)
{
    const float f = std::max(static_cast<float>(std::abs(x)), std::numeric_limits<float>::min());
    return std::nextafter(f, std::numeric_limits<float>::infinity()) - f;
}

TEST(SiluAvx2, IsWithinFourUlpsOfTheExactSiluAndWritesOnlyItsEntries)
{
    // Every 2^-10 over [-100, 100]: where the result is a normal float (x > -87) within 4 ulps (the exp's 2.5, the
    // sum's and the division's half ulp each); below, where the exp saturates, within 1e-36 absolutely.
    const int64_t n = 200 * 1024 + 1;
    std::vector<float> x(static_cast<size_t>(n) + 8, kSentinel);
    for (int64_t i = 0; i < n; ++i)
        x[static_cast<size_t>(i)] = -100.0f + static_cast<float>(i) / 1024.0f;
    const std::vector<float> input = x;
    if (!siluAvx2(x.data(), n)) {
        EXPECT_FALSE(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
        EXPECT_EQ(x, input);
        return;
    }
    double worstUlps = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        const double in = input[static_cast<size_t>(i)], got = x[static_cast<size_t>(i)];
        const double exact = in / (1.0 + std::exp(-in));
        if (in > -87.0) {
            worstUlps = std::max(worstUlps, std::abs(got - exact) / ulpAt(exact));
            ASSERT_LE(std::abs(got - exact), 4.0 * ulpAt(exact)) << "x = " << in;
        } else {
            ASSERT_LE(std::abs(got - exact), 1e-36) << "x = " << in;
        }
    }
    for (size_t i = static_cast<size_t>(n); i < x.size(); ++i)
        EXPECT_EQ(x[i], kSentinel) << "wrote past the row";
    RecordProperty("worst_ulps", std::to_string(worstUlps));
}

TEST(SiluAvx2, EveryTailOfTheLanesIsComputedAndNothingPastIt)
{
    for (int64_t n = 0; n <= 17; ++n) {
        std::vector<float> x(static_cast<size_t>(n) + 8, kSentinel);
        for (int64_t i = 0; i < n; ++i)
            x[static_cast<size_t>(i)] = 0.37f * static_cast<float>(i) - 3.0f;
        const std::vector<float> input = x;
        if (!siluAvx2(x.data(), n)) { // only a CPU without AVX2 and FMA declines, touching nothing
            EXPECT_FALSE(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
            EXPECT_EQ(x, input);
            continue;
        }
        for (int64_t i = 0; i < n; ++i) {
            const double in = input[static_cast<size_t>(i)];
            const double exact = in / (1.0 + std::exp(-in));
            EXPECT_LE(std::abs(x[static_cast<size_t>(i)] - exact), 4.0 * ulpAt(exact)) << "n=" << n << " i=" << i;
        }
        for (size_t i = static_cast<size_t>(n); i < x.size(); ++i)
            EXPECT_EQ(x[i], kSentinel) << "n=" << n << ": wrote past the row";
    }
}

} // namespace
} // namespace attn
