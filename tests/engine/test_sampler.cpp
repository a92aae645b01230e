// SPDX-License-Identifier: MIT
// Sampler properties: greedy takes the first maximum, seeded runs repeat, top-p never draws outside the nucleus,
// top-k keeps only the k best, and draw frequencies follow the softmax. (Exact agreement with llama2.c run.c is
// checked end to end by the stories260K generate tests.)
#include "core/error.h"
#include "session/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace attn {
namespace {

std::vector<float> logitsOf(const std::vector<double>& probs) {
    std::vector<float> l;
    for (double p : probs)
        l.push_back(static_cast<float>(std::log(p)));
    return l;
}

TEST(Sampler, GreedyTakesTheFirstMaximum) {
    Sampler s({ 0.0f, 0.9f, 0, 0 });
    const std::vector<float> l { 0.5f, 2.0f, -1.0f, 2.0f };
    EXPECT_EQ(s.sample(l.data(), 4), 1);
}

TEST(Sampler, XorshiftFollowsItsDefinition) {
    // xorshift64* (Vigna): the state update and output multiplier, checked against an independent evaluation.
    Sampler s({ 1.0f, 0.9f, 0, 42 });
    uint64_t x = 42;
    for (int i = 0; i < 5; ++i) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        EXPECT_EQ(s.randomU32(), static_cast<uint32_t>((x * 2685821657736338717ull) >> 32));
    }
    for (int i = 0; i < 1000; ++i) {
        const float f = s.randomF32();
        ASSERT_GE(f, 0.0f);
        ASSERT_LT(f, 1.0f);
    }
}

TEST(Sampler, SameSeedSameDrawsDifferentSeedDifferentDraws) {
    const std::vector<float> l = logitsOf({ 0.2, 0.2, 0.2, 0.2, 0.2 });
    Sampler a({ 1.0f, 0.0f, 0, 7 }), b({ 1.0f, 0.0f, 0, 7 }), c({ 1.0f, 0.0f, 0, 8 });
    std::vector<int64_t> da, db, dc;
    for (int i = 0; i < 50; ++i) {
        da.push_back(a.sample(l.data(), 5));
        db.push_back(b.sample(l.data(), 5));
        dc.push_back(c.sample(l.data(), 5));
    }
    EXPECT_EQ(da, db);
    EXPECT_NE(da, dc);
}

TEST(Sampler, TopPDrawsOnlyFromTheNucleusInProportion) {
    // Sorted: 0.5 (id 2), 0.3 (id 0), 0.15, 0.05. Cumulative passes 0.7 at the second: nucleus {2, 0}.
    const std::vector<float> l = logitsOf({ 0.3, 0.15, 0.5, 0.05 });
    Sampler s({ 1.0f, 0.7f, 0, 12345 });
    std::map<int64_t, int> counts;
    const int draws = 20000;
    for (int i = 0; i < draws; ++i)
        ++counts[s.sample(l.data(), 4)];
    EXPECT_EQ(counts.size(), 2u);
    EXPECT_NEAR(counts[2] / double(draws), 0.5 / 0.8, 0.02);
    EXPECT_NEAR(counts[0] / double(draws), 0.3 / 0.8, 0.02);
}

TEST(Sampler, FullDistributionAndTemperature) {
    const std::vector<float> l = logitsOf({ 0.1, 0.6, 0.3 });
    Sampler plain({ 1.0f, 1.0f, 0, 99 });
    Sampler hot({ 2.0f, 1.0f, 0, 99 });
    std::map<int64_t, int> cp, ch;
    const int draws = 20000;
    for (int i = 0; i < draws; ++i) {
        ++cp[plain.sample(l.data(), 3)];
        ++ch[hot.sample(l.data(), 3)];
    }
    EXPECT_NEAR(cp[1] / double(draws), 0.6, 0.02);
    EXPECT_NEAR(cp[0] / double(draws), 0.1, 0.02);
    // T = 2: p ~ sqrt(p): 0.316, 0.775, 0.548 normalized.
    const double z = std::sqrt(0.1) + std::sqrt(0.6) + std::sqrt(0.3);
    EXPECT_NEAR(ch[0] / double(draws), std::sqrt(0.1) / z, 0.02);
    EXPECT_NEAR(ch[1] / double(draws), std::sqrt(0.6) / z, 0.02);
}

TEST(Sampler, TopKKeepsOnlyTheBest) {
    const std::vector<float> l = logitsOf({ 0.1, 0.4, 0.2, 0.3 });
    Sampler s({ 1.0f, 1.0f, 2, 5 });
    std::map<int64_t, int> counts;
    for (int i = 0; i < 5000; ++i)
        ++counts[s.sample(l.data(), 4)];
    EXPECT_EQ(counts.size(), 2u);
    EXPECT_GT(counts[1], 0);
    EXPECT_GT(counts[3], 0);
}

TEST(Sampler, RejectsBadOptions) {
    EXPECT_THROW(Sampler({ -1.0f, 0.9f, 0, 1 }), Error);
    EXPECT_THROW(Sampler({ 1.0f, 0.9f, -2, 1 }), Error);
    EXPECT_THROW(Sampler({ 1.0f, 0.9f, 0, 0 }), Error);
}

} // namespace
} // namespace attn
