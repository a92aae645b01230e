// SPDX-License-Identifier: MIT
// ALiBi slopes/bias and T5 relative position buckets against direct transcriptions of the HF formulas.
#include "attention/position_bias.h"
#include "core/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace attn {
namespace {

/// HF T5Attention._relative_position_bucket for one value, in double.
int64_t referenceBucket(int64_t relativePosition, bool bidirectional, int64_t numBuckets, int64_t maxDistance) {
    int64_t relativeBuckets = 0;
    if (bidirectional) {
        numBuckets /= 2;
        relativeBuckets += (relativePosition > 0 ? 1 : 0) * numBuckets;
        relativePosition = std::abs(relativePosition);
    } else {
        relativePosition = -std::min<int64_t>(relativePosition, 0);
    }
    const int64_t maxExact = numBuckets / 2;
    const bool isSmall = relativePosition < maxExact;
    if (isSmall) return relativeBuckets + relativePosition;
    int64_t ifLarge = maxExact
        + static_cast<int64_t>(std::log(static_cast<double>(relativePosition) / maxExact)
            / std::log(static_cast<double>(maxDistance) / maxExact) * (numBuckets - maxExact));
    ifLarge = std::min(ifLarge, numBuckets - 1);
    return relativeBuckets + ifLarge;
}

TEST(T5Buckets, MatchHuggingFaceFormula) {
    struct Config {
        int64_t buckets, maxDistance;
    };
    for (const Config c : { Config { 32, 128 }, Config { 16, 64 }, Config { 64, 256 }, Config { 8, 20 },
             Config { 6, 10 }, Config { 32, 32 } })
        for (const bool bidirectional : { true, false })
            for (int64_t rel = -1000; rel <= 1000; ++rel)
                ASSERT_EQ(t5RelativeBucket(rel, bidirectional, c.buckets, c.maxDistance),
                    referenceBucket(rel, bidirectional, c.buckets, c.maxDistance))
                    << "rel=" << rel << " bidirectional=" << bidirectional << " buckets=" << c.buckets
                    << " maxDistance=" << c.maxDistance;
}

TEST(T5Buckets, StructureOfDefaultConfig) {
    // 32 buckets, bidirectional: keys before the query use 0..15, keys after use 16..31; 8 exact buckets per side.
    EXPECT_EQ(t5RelativeBucket(0, true, 32, 128), 0);
    EXPECT_EQ(t5RelativeBucket(-1, true, 32, 128), 1);
    EXPECT_EQ(t5RelativeBucket(-7, true, 32, 128), 7);
    EXPECT_EQ(t5RelativeBucket(1, true, 32, 128), 17);
    EXPECT_EQ(t5RelativeBucket(-8, true, 32, 128), 8);
    EXPECT_EQ(t5RelativeBucket(-5000, true, 32, 128), 15);
    EXPECT_EQ(t5RelativeBucket(5000, true, 32, 128), 31);
    // Causal: future keys all fall in bucket 0, 16 exact buckets for the past.
    EXPECT_EQ(t5RelativeBucket(9, false, 32, 128), 0);
    EXPECT_EQ(t5RelativeBucket(-15, false, 32, 128), 15);
    EXPECT_EQ(t5RelativeBucket(-5000, false, 32, 128), 31);
    int64_t previous = 0;
    for (int64_t rel = 0; rel >= -400; --rel) { // monotone in distance
        const int64_t b = t5RelativeBucket(rel, false, 32, 128);
        EXPECT_GE(b, previous);
        previous = b;
    }
}

TEST(T5Buckets, PositionBiasLooksUpTheTable) {
    const int64_t buckets = 32, heads = 3, nq = 7, nk = 12;
    Tensor table({ buckets, heads });
    std::mt19937 rng(5);
    std::normal_distribution<float> dist;
    for (float& x : table.storage())
        x = dist(rng);
    for (const bool bidirectional : { true, false })
        for (const int64_t offset : { 0, 5 }) {
            const Tensor bias = t5PositionBias(table, nq, nk, offset, bidirectional, buckets, 128);
            ASSERT_EQ(bias.shape(), (Shape { heads, nq, nk }));
            for (int64_t h = 0; h < heads; ++h)
                for (int64_t i = 0; i < nq; ++i)
                    for (int64_t j = 0; j < nk; ++j)
                        ASSERT_EQ(bias.at({ h, i, j }),
                            table.at({ referenceBucket(j - (offset + i), bidirectional, buckets, 128), h }));
        }
    EXPECT_THROW(t5PositionBias(Tensor({ 16, heads }), nq, nk, 0, true, buckets, 128), Error);
    EXPECT_THROW(t5PositionBias(Tensor({ buckets }), nq, nk, 0, true, buckets, 128), Error);
    EXPECT_THROW(t5RelativeBucket(3, true, 2, 128), Error);
    EXPECT_THROW(t5RelativeBucket(3, false, 32, 16), Error);
}

/// HF bloom build_alibi_tensor slopes, in double.
std::vector<double> referenceSlopes(int64_t numHeads) {
    const double closest = std::pow(2.0, std::floor(std::log2(static_cast<double>(numHeads))));
    const double base = std::pow(2.0, -std::pow(2.0, -(std::log2(closest) - 3)));
    std::vector<double> slopes;
    for (int64_t p = 1; p <= static_cast<int64_t>(closest); ++p)
        slopes.push_back(std::pow(base, static_cast<double>(p)));
    if (closest != numHeads) {
        const double extraBase = std::pow(2.0, -std::pow(2.0, -(std::log2(2 * closest) - 3)));
        const int64_t remaining
            = std::min<int64_t>(static_cast<int64_t>(closest), numHeads - static_cast<int64_t>(closest));
        for (int64_t p = 1; p < 1 + 2 * remaining; p += 2)
            slopes.push_back(std::pow(extraBase, static_cast<double>(p)));
    }
    return slopes;
}

TEST(Alibi, SlopesMatchBloomIncludingNonPowersOfTwo) {
    for (int64_t n = 1; n <= 70; ++n) {
        const std::vector<float> slopes = alibiSlopes(n);
        const std::vector<double> ref = referenceSlopes(n);
        ASSERT_EQ(slopes.size(), ref.size()) << n;
        for (size_t h = 0; h < ref.size(); ++h)
            EXPECT_NEAR(slopes[h], ref[h], 1e-6 * ref[h]) << "heads=" << n << " h=" << h;
    }
    // The paper's example: 8 heads -> 1/2, 1/4, ..., 1/256.
    const std::vector<float> eight = alibiSlopes(8);
    for (size_t h = 0; h < 8; ++h)
        EXPECT_EQ(eight[h], std::ldexp(1.0f, -static_cast<int>(h + 1)));
    EXPECT_THROW(alibiSlopes(0), Error);
}

TEST(Alibi, BiasIsSlopeTimesSignedDistance) {
    const std::vector<float> slopes = alibiSlopes(6);
    const Tensor bias = alibiBias(slopes, 4, 9, 5);
    ASSERT_EQ(bias.shape(), (Shape { 6, 4, 9 }));
    for (int64_t h = 0; h < 6; ++h)
        for (int64_t i = 0; i < 4; ++i)
            for (int64_t j = 0; j < 9; ++j)
                EXPECT_NEAR(bias.at({ h, i, j }), slopes[static_cast<size_t>(h)] * static_cast<double>(j - (5 + i)),
                    1e-6 * std::abs(slopes[static_cast<size_t>(h)] * static_cast<double>(j - (5 + i))));
    EXPECT_THROW(alibiBias(slopes, 4, 9, -1), Error);
}

} // namespace
} // namespace attn
