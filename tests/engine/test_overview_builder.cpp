// SPDX-License-Identifier: MIT
// OverviewBuilder with a structural mask folds only each row's visible keys: its block max and mean must still be
// those of the whole matrix, masked zeros included, for cells the mask cuts through (the mean divides by every entry
// of the cell, not by its visible ones) and cells it covers whole, with edge cells smaller than a block.
#include "attention_source/overview.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace attn {
namespace {

struct MaskCase {
    std::string name;
    MaskSpec mask;
    int64_t numQueries, numKeys;
};

std::vector<MaskCase> maskCases()
{
    MaskSpec causal;
    causal.causal = true;
    MaskSpec offset = causal; // a later chunk of a KV-cached input: rows see the earlier keys
    offset.queryOffset = 37;
    MaskSpec window = causal;
    window.slidingWindow = 13;
    MaskSpec band; // non-causal window: |p - j| < w
    band.slidingWindow = 9;
    return { { "causal", causal, 103, 103 }, { "causal with offset", offset, 70, 107 },
        { "sliding window", window, 101, 101 }, { "band", band, 99, 99 } };
}

/// Random row-normalized probabilities over each row's visible keys, exactly 0 elsewhere.
std::vector<float> maskedProbabilities(const MaskCase& c, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.01f, 1.0f);
    std::vector<float> p(static_cast<size_t>(c.numQueries * c.numKeys), 0.0f);
    for (int64_t i = 0; i < c.numQueries; ++i) {
        const auto [a, b] = visibleRange(c.mask, i, c.numKeys);
        float sum = 0;
        for (int64_t j = a; j < b; ++j)
            sum += p[static_cast<size_t>(i * c.numKeys + j)] = u(rng);
        for (int64_t j = a; j < b; ++j)
            p[static_cast<size_t>(i * c.numKeys + j)] /= sum;
    }
    return p;
}

Overview build(const MaskCase& c, const std::vector<float>& p, int64_t block, const MaskSpec& mask, int64_t chunk)
{
    OverviewBuilder builder(c.numQueries, c.numKeys, block, mask);
    for (int64_t q0 = 0; q0 < c.numQueries; q0 += chunk) {
        const int64_t rows = std::min(chunk, c.numQueries - q0);
        builder.add(q0, rows, p.data() + q0 * c.numKeys);
    }
    return builder.finish();
}

TEST(OverviewBuilder, FoldingOnlyVisibleKeysKeepsTheWholeMatricesBlockMaxAndMean)
{
    for (const MaskCase& c : maskCases())
        for (const int64_t block : { 1, 4, 8 })
            for (const int64_t chunk : { 1, 5, 64 }) { // row blocks that cut block rows or hold several
                SCOPED_TRACE(c.name + ", block " + std::to_string(block) + ", chunk " + std::to_string(chunk));
                const std::vector<float> p = maskedProbabilities(c, static_cast<uint32_t>(block * 100 + chunk));
                const Overview masked = build(c, p, block, c.mask, chunk);
                const Overview whole = build(c, p, block, MaskSpec {}, chunk);
                ASSERT_EQ(masked.levels.size(), whole.levels.size());
                for (size_t l = 0; l < masked.levels.size(); ++l) {
                    const OverviewLevel &m = masked.levels[l], &w = whole.levels[l];
                    ASSERT_EQ(m.rows, (c.numQueries + m.block - 1) / m.block);
                    ASSERT_EQ(m.cols, (c.numKeys + m.block - 1) / m.block);
                    // The same cells summed over the same keys in the same order: equal bit for bit.
                    EXPECT_EQ(m.max, w.max) << "level " << l;
                    EXPECT_EQ(m.mean, w.mean) << "level " << l;
                    // Every entry into its cell, masked zeros included; the mean divides by the cell's entries.
                    std::vector<double> sum(m.max.size(), 0.0), count(m.max.size(), 0.0);
                    std::vector<float> max(m.max.size(), 0.0f);
                    for (int64_t i = 0; i < c.numQueries; ++i)
                        for (int64_t j = 0; j < c.numKeys; ++j) {
                            const auto cell = static_cast<size_t>((i / m.block) * m.cols + j / m.block);
                            const float v = p[static_cast<size_t>(i * c.numKeys + j)];
                            sum[cell] += v;
                            count[cell] += 1;
                            max[cell] = std::max(max[cell], v);
                        }
                    EXPECT_EQ(m.max, max) << "level " << l;
                    for (size_t cell = 0; cell < sum.size(); ++cell) {
                        const double mean = sum[cell] / count[cell];
                        // float32 of a double mean: within one float ulp of the exact one.
                        ASSERT_NEAR(m.mean[cell], mean, 1e-7 * mean + 1e-12) << "level " << l << " cell " << cell;
                    }
                }
            }
}

} // namespace
} // namespace attn
