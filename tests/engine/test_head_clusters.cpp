// SPDX-License-Identifier: MIT
// The head map's signatures, clusters and roles: block means of hand-made patterns, planted groups recovered, the
// nearest-neighbour-chain linkage against a naive average linkage, and the role rule on hand-made heads.
#include "analysis/atlas_roles.h"
#include "analysis/head_clusters.h"
#include "core/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

namespace attn::test {
namespace {

Tensor randomFeatures(int64_t heads, int64_t d, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal;
    Tensor f({ heads, d });
    for (int64_t i = 0; i < heads * d; ++i)
        f.data()[i] = normal(rng);
    return f;
}

/// The partition into `k` clusters as sets of heads.
std::set<std::set<int64_t>> partition(const std::vector<int64_t>& cluster, int64_t k)
{
    std::vector<std::set<int64_t>> groups(static_cast<size_t>(k));
    for (size_t i = 0; i < cluster.size(); ++i)
        groups[static_cast<size_t>(cluster[i])].insert(static_cast<int64_t>(i));
    return { groups.begin(), groups.end() };
}

/// Textbook average linkage: merge the two clusters whose mean pairwise distance (1 - r) is least, until k remain.
std::set<std::set<int64_t>> naiveAverageLinkage(const Tensor& similarity, int64_t k)
{
    const int64_t n = similarity.dim(0);
    std::vector<std::vector<int64_t>> groups;
    for (int64_t i = 0; i < n; ++i)
        groups.push_back({ i });
    while (static_cast<int64_t>(groups.size()) > k) {
        double best = 1e300;
        size_t ba = 0, bb = 1;
        for (size_t a = 0; a < groups.size(); ++a)
            for (size_t b = a + 1; b < groups.size(); ++b) {
                double sum = 0.0;
                for (const int64_t x : groups[a])
                    for (const int64_t y : groups[b])
                        sum += 1.0 - similarity.data()[x * n + y];
                const double mean = sum / static_cast<double>(groups[a].size() * groups[b].size());
                if (mean < best) {
                    best = mean;
                    ba = a;
                    bb = b;
                }
            }
        groups[ba].insert(groups[ba].end(), groups[bb].begin(), groups[bb].end());
        groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(bb));
    }
    std::set<std::set<int64_t>> out;
    for (const auto& g : groups)
        out.insert({ g.begin(), g.end() });
    return out;
}

TEST(HeadClusters, PatternsAreBlockMeans)
{
    // One layer, two heads over 48 positions: pooled to 24 x 24 blocks of 2 x 2 positions.
    const int64_t n = 48;
    Tensor a({ 2, n, n });
    for (int64_t i = 0; i < 2 * n * n; ++i)
        a.data()[i] = static_cast<float>(i % 97) / 97.0f;
    HeadPatterns patterns(1, 2);
    patterns.add({ a });
    const Tensor f = patterns.features();
    ASSERT_EQ(f.shape(), (Shape { 2, kPatternGrid * kPatternGrid }));
    for (const auto& [h, row, col] : { std::tuple { 0, 0, 0 }, std::tuple { 1, 5, 17 }, std::tuple { 1, 23, 23 } }) {
        double mean = 0.0;
        for (int64_t q = 2 * row; q < 2 * row + 2; ++q)
            for (int64_t j = 2 * col; j < 2 * col + 2; ++j)
                mean += a.data()[(h * n + q) * n + j] / 4.0;
        EXPECT_NEAR(f.data()[h * kPatternGrid * kPatternGrid + row * kPatternGrid + col], mean, 1e-6);
    }
    // A short input is kept whole, and a second input appends its own cells.
    Tensor b({ 2, 3, 3 });
    b.data()[2 * 3 + 2] = 0.5f; // head 0, row 2, key 2
    patterns.add({ b });
    EXPECT_EQ(patterns.features().dim(1), kPatternGrid * kPatternGrid + 9);
    EXPECT_FLOAT_EQ(patterns.features().data()[kPatternGrid * kPatternGrid + 8], 0.5f);
    EXPECT_THROW(patterns.add({ Tensor({ 3, 3, 3 }) }), Error);
}

TEST(HeadClusters, PlantedGroupsAreFoundAndContiguous)
{
    // Three base patterns; heads 0..11 take them in a shuffled order, each with a little noise.
    const Tensor base = randomFeatures(3, 40, 1);
    const std::vector<int64_t> group { 2, 0, 1, 1, 0, 2, 2, 1, 0, 0, 1, 2 };
    Tensor f({ 12, 40 });
    const Tensor noise = randomFeatures(12, 40, 2);
    for (int64_t h = 0; h < 12; ++h)
        for (int64_t i = 0; i < 40; ++i)
            f.data()[h * 40 + i] = base.data()[group[size_t(h)] * 40 + i] + 0.1f * noise.data()[h * 40 + i];
    const HeadClusters c = clusterHeads(f, 3);
    ASSERT_EQ(c.count, 3);
    for (int64_t x = 0; x < 12; ++x)
        for (int64_t y = 0; y < 12; ++y)
            EXPECT_EQ(c.cluster[size_t(x)] == c.cluster[size_t(y)], group[size_t(x)] == group[size_t(y)])
                << x << " " << y;
    std::vector<int64_t> sorted = c.order;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < 12; ++i)
        EXPECT_EQ(sorted[size_t(i)], i) << "the order is a permutation of the heads";
    for (size_t i = 0; i < 12; ++i)
        EXPECT_EQ(c.cluster[size_t(c.order[i])], static_cast<int64_t>(i / 4))
            << "clusters are runs numbered along the order";
    for (int64_t x = 0; x < 12; ++x) {
        EXPECT_FLOAT_EQ(c.similarity.data()[x * 12 + x], 1.0f);
        for (int64_t y = 0; y < 12; ++y)
            EXPECT_NEAR(c.similarity.data()[x * 12 + y], c.similarity.data()[y * 12 + x], 1e-6);
    }
}

TEST(HeadClusters, EveryCutEqualsNaiveAverageLinkage)
{
    for (const uint64_t seed : { 3u, 4u, 5u }) {
        const Tensor f = randomFeatures(17, 9, seed);
        for (int64_t k = 1; k <= 17; ++k) {
            const HeadClusters c = clusterHeads(f, k);
            EXPECT_EQ(c.count, k);
            EXPECT_EQ(partition(c.cluster, k), naiveAverageLinkage(c.similarity, k)) << "seed " << seed << " k " << k;
        }
    }
    EXPECT_EQ(clusterHeads(randomFeatures(4, 3, 6), 9).count, 4) << "no more clusters than heads";
    EXPECT_EQ(clusterHeads(randomFeatures(1, 3, 6), 2).order, std::vector<int64_t> { 0 });
    EXPECT_THROW(clusterHeads(randomFeatures(4, 3, 6), 0), Error);
}

TEST(HeadClusters, ConstantSignatureCorrelatesZero)
{
    Tensor f = randomFeatures(3, 5, 7);
    std::fill(f.data() + 5, f.data() + 10, 0.25f);
    const HeadClusters c = clusterHeads(f, 1);
    EXPECT_FLOAT_EQ(c.similarity.data()[1 * 3 + 0], 0.0f);
    EXPECT_FLOAT_EQ(c.similarity.data()[1 * 3 + 1], 1.0f);
}

/// One layer of four heads over tokens 7 1 2 3 1 2 3: previous token, induction (else token 0), token 0, uniform.
HeadAtlas roleAtlas()
{
    const std::vector<int64_t> t { 7, 1, 2, 3, 1, 2, 3 };
    const auto n = static_cast<int64_t>(t.size());
    Tensor a({ 4, n, n });
    for (int64_t q = 0; q < n; ++q) {
        a.data()[q * n + std::max<int64_t>(q - 1, 0)] = 1.0f;
        int64_t key = 0;
        for (int64_t j = 0; j < q; ++j)
            if (t[size_t(j)] == t[size_t(q)]) key = j + 1;
        a.data()[(n + q) * n + key] = 1.0f;
        a.data()[(2 * n + q) * n] = 1.0f;
        for (int64_t j = 0; j <= q; ++j)
            a.data()[(3 * n + q) * n + j] = 1.0f / static_cast<float>(q + 1);
    }
    HeadAtlas atlas(1, 4);
    atlas.add(t, { a });
    return atlas;
}

TEST(AtlasRoles, RuleTakesTheFirstScoreOverItsThreshold)
{
    const HeadAtlas atlas = roleAtlas();
    // The induction head also puts 4/7 of its mass on token 0 (a sink score over 0.5): induction is tried first.
    ASSERT_GT(atlas.score(AtlasScore::FirstToken).data()[1], 0.5f);
    EXPECT_EQ(atlasRoles(atlas),
        (std::vector<AtlasRole> {
            AtlasRole::PreviousToken, AtlasRole::Induction, AtlasRole::FirstToken, AtlasRole::Mixed }));
    EXPECT_EQ(atlasRoleName(AtlasRole::FirstToken), "first token (sink)");
}

TEST(AtlasRoles, ScoreSignaturesAreStandardized)
{
    const HeadAtlas atlas = roleAtlas();
    const Tensor s = scoreSignatures(atlas);
    ASSERT_EQ(s.shape(), (Shape { 4, kAtlasScores }));
    for (int c = 0; c < kAtlasScores; ++c) {
        double mean = 0.0, squares = 0.0;
        for (int64_t h = 0; h < 4; ++h) {
            mean += s.data()[h * kAtlasScores + c] / 4.0;
            squares += double(s.data()[h * kAtlasScores + c]) * s.data()[h * kAtlasScores + c] / 4.0;
        }
        EXPECT_NEAR(mean, 0.0, 1e-6) << atlasScoreNames()[size_t(c)];
        EXPECT_NEAR(squares, 1.0, 1e-5) << atlasScoreNames()[size_t(c)];
    }
}

TEST(AtlasRoles, AtlasFileWithImpossibleShapeIsRefused)
{
    try {
        HeadAtlas::fromJson(R"({"layers": 100000000, "heads": 100000000, "inputs": 1, "totals": {}})", "huge.json");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("huge.json"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace attn::test
