// SPDX-License-Identifier: MIT
// The attention source against the materialized probabilities of the CPU core: tiles for every mask kind (with and
// without known row statistics, on the plain core and through the CPU backend), overview pyramids against block
// max / mean of the full matrix, and streamed head statistics against the whole-matrix ones.
#include "attention_source/attention_source.h"
#include "backend/cpu_backend.h"
#include "core/error.h"
#include "model_test_util.h"
#include "support/tile_cases.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace attn {
namespace {

using test::maxAbsDiff;

// A tile's scores come from a GEMM of another shape than the full matrix's (other kernels, other summation order),
// so the probabilities differ by a few float32 ulps (< 3e-7 measured with AVX-512 and AVX2 kernels); with known row
// statistics exp(s - lse) replaces exp(s - max) / sum, another few ulps. 1e-6 holds on any x86-64 and still catches a
// tile normalized over its own columns or a mask off by one key (errors of 1e-2 and more).
constexpr double kTileTolerance = 1e-6;

struct Materialized {
    std::vector<Tensor> q, k, probs; ///< per layer
};

Materialized materialize(const test::TileCase& c, int64_t layers)
{
    Materialized m;
    for (int64_t l = 0; l < layers; ++l) {
        const uint32_t seed = static_cast<uint32_t>(100 * l + c.nq);
        m.q.push_back(test::normalTensor({ c.hq, c.nq, c.d }, seed));
        m.k.push_back(test::normalTensor({ c.hkv, c.nk, c.d }, seed + 1));
        m.probs.push_back(attentionProbabilities(m.q.back(), m.k.back(), c.options));
    }
    return m;
}

std::shared_ptr<const QueryKeyStore> storeOf(const Materialized& m)
{
    return std::make_shared<const OwnedQueryKeys>(m.q, m.k);
}

TEST(AttentionSource, TilesEqualMaterializedProbabilitiesForEveryMaskKind)
{
    CpuBackend cpu;
    for (const test::TileCase& c : test::tileCases()) {
        const Materialized m = materialize(c, 2);
        const AttentionSource plain(storeOf(m), c.options);
        const AttentionSource withStats(storeOf(m), c.options);
        const AttentionSource onBackend(storeOf(m), c.options, &cpu);
        for (int64_t l = 0; l < 2; ++l)
            for (int64_t h = 0; h < c.hq; ++h)
                withStats.rowStats(l, h); // tiles then compute their own columns only
        for (int64_t l = 0; l < 2; ++l)
            for (const TileRange& r : c.tiles) {
                SCOPED_TRACE(c.name + " layer " + std::to_string(l) + " " + test::describeTile(r));
                const Tensor expected = test::sliceTile(m.probs[static_cast<size_t>(l)], r);
                EXPECT_LE(maxAbsDiff(*plain.tile(l, r), expected), kTileTolerance);
                EXPECT_LE(maxAbsDiff(*withStats.tile(l, r), expected), kTileTolerance);
                EXPECT_LE(maxAbsDiff(*onBackend.tile(l, r), expected), kTileTolerance);
                // Masked entries are exactly zero, as in the materialized matrix.
                const auto tile = withStats.tile(l, r);
                for (int64_t i = r.q0; i < r.q1; ++i)
                    for (int64_t j = r.k0; j < r.k1; ++j) {
                        if (!keyVisible(c.options.mask, i, j)) {
                            ASSERT_EQ(tile->at({ i - r.q0, j - r.k0 }), 0.0f);
                        }
                    }
            }
    }
}

TEST(AttentionSource, RowStatisticsGiveEveryProbability)
{
    const test::TileCase c = test::tileCases()[2]; // sliding window
    const Materialized m = materialize(c, 1);
    const AttentionSource source(storeOf(m), c.options);
    const auto stats = source.rowStats(0, 1);
    ASSERT_EQ(stats->logSumExp.size(), static_cast<size_t>(c.nq));
    for (int64_t i = 0; i < c.nq; ++i) {
        // The largest probability of a row is exp(max - lse).
        float largest = 0;
        for (int64_t j = 0; j < c.nk; ++j)
            largest = std::max(largest, m.probs[0].at({ 1, i, j }));
        EXPECT_NEAR(std::exp(stats->max[static_cast<size_t>(i)] - stats->logSumExp[static_cast<size_t>(i)]), largest,
            kTileTolerance);
    }
}

TEST(AttentionSource, OverviewPyramidsEqualBlockMaxAndMeanOfTheFullMatrix)
{
    test::TileCase c = test::tileCases()[4]; // GQA with a query offset
    c.nq = 300;
    c.nk = 304;
    const Materialized m = materialize(c, 1);
    const AttentionSource source(storeOf(m), c.options);
    for (const int64_t side : { AttentionSource::kThumbnailSide, AttentionSource::kOverviewSide }) {
        const auto overview = source.overview(0, 3, side);
        ASSERT_FALSE(overview->levels.empty());
        EXPECT_EQ(overview->levels.front().block, side == AttentionSource::kThumbnailSide ? 8 : 1);
        EXPECT_EQ(overview->levels.back().rows * overview->levels.back().cols, 1);
        EXPECT_LE(test::pyramidError(*overview, m.probs[0], 3), kTileTolerance) << "side " << side;
    }
    // The coarsest level's mean is the whole matrix's: every row sums to 1 over 304 keys.
    EXPECT_NEAR(source.overview(0, 3)->levels.back().meanAt(0, 0), 1.0 / 304.0, 1e-7);
    EXPECT_EQ(source.overview(0, 3, 16)->levelFor(16).rows, 19); // 300 rows in blocks of 16
}

TEST(AttentionSource, AHeadSwitchBuildsTheOverviewAndKeepsTheForwardsStatistics)
{
    // A head switch after a derived run finds the head summarized by the forward (adoptSummary): its pass builds the
    // heatmap's overview only, and the statistics it was given stay. The mark on the entropy is what only the adopted
    // statistics carry, so a pass that recomputed them would lose it.
    const test::TileCase c = test::tileCases()[0]; // causal
    const Materialized m = materialize(c, 1);
    const AttentionSource reference(storeOf(m), c.options);
    HeadStats given = reference.headStats(0, 1);
    given.entropy += 1.0;
    const AttentionSource source(storeOf(m), c.options);
    source.adoptSummary(0, 1, given, *reference.overview(0, 1, AttentionSource::kThumbnailSide));
    const auto shown = source.overview(0, 1);
    EXPECT_EQ(source.headStats(0, 1).entropy, given.entropy);
    const auto expected = reference.overview(0, 1);
    ASSERT_EQ(shown->levels.size(), expected->levels.size());
    for (size_t i = 0; i < shown->levels.size(); ++i) {
        const OverviewLevel &a = shown->levels[i], &b = expected->levels[i];
        ASSERT_EQ(a.max.size(), b.max.size());
        for (size_t j = 0; j < a.max.size(); ++j) {
            EXPECT_NEAR(a.max[j], b.max[j], kTileTolerance);
            EXPECT_NEAR(a.mean[j], b.mean[j], kTileTolerance);
        }
    }
}

TEST(AttentionSource, StreamedHeadStatisticsEqualTheWholeMatrixOnes)
{
    for (const test::TileCase& c : test::tileCases()) {
        SCOPED_TRACE(c.name);
        const Materialized m = materialize(c, 1);
        const AttentionSource source(storeOf(m), c.options);
        for (int64_t h = 0; h < c.hq; ++h) {
            const float* head = m.probs[0].data() + h * c.nq * c.nk;
            const HeadStats whole = computeHeadStats(head, c.nq, c.nk, c.options.mask);
            // The same probabilities in row blocks of 7: the same sums in the same order, so the same doubles.
            HeadStatsAccumulator blocks;
            for (int64_t q0 = 0; q0 < c.nq; q0 += 7) {
                MaskSpec rowMask = c.options.mask;
                rowMask.queryOffset += q0;
                blocks.add(head + q0 * c.nk, std::min<int64_t>(7, c.nq - q0), c.nk, rowMask);
            }
            const HeadStats streamed = blocks.result();
            EXPECT_EQ(streamed.entropy, whole.entropy);
            EXPECT_EQ(streamed.normalizedEntropy, whole.normalizedEntropy);
            EXPECT_EQ(streamed.meanDistance, whole.meanDistance);
            EXPECT_EQ(streamed.sinkMass, whole.sinkMass);
            EXPECT_EQ(streamed.previousToken, whole.previousToken);
            EXPECT_EQ(streamed.diagonal, whole.diagonal);
            EXPECT_EQ(streamed.rows, whole.rows);
            // Through the source the probabilities themselves differ by float32 ulps (kTileTolerance); the means
            // of entropy-like sums over up to 41 keys then differ by at most ~41 * 1e-6 * |log p| < 1e-4.
            const HeadStats derived = source.headStats(0, h);
            EXPECT_NEAR(derived.entropy, whole.entropy, 1e-4);
            EXPECT_NEAR(derived.normalizedEntropy, whole.normalizedEntropy, 1e-4);
            EXPECT_NEAR(derived.meanDistance, whole.meanDistance, 1e-4);
            EXPECT_NEAR(derived.sinkMass, whole.sinkMass, kTileTolerance);
            EXPECT_NEAR(derived.previousToken, whole.previousToken, kTileTolerance);
            EXPECT_NEAR(derived.diagonal, whole.diagonal, kTileTolerance);
            EXPECT_EQ(derived.rows, whole.rows);
        }
    }
}

// A head longer than one streamed row block (4 MiB): the blocks share one buffer, so each must hold exactly its own
// rows, zero outside every row's mask, whatever the block before it wrote (a sliding window moves its keys right
// from block to block, a causal block reaches further right, padding leaves holes).
TEST(AttentionSource, StreamedRowBlocksOfALongHeadEqualTheMaterializedRows)
{
    AttentionOptions causal;
    causal.mask.causal = true;
    AttentionOptions window = causal;
    window.mask.slidingWindow = 100;
    AttentionOptions padded; // bidirectional, padded keys near the end
    padded.mask.keyKeep.assign(1100, 1);
    for (int64_t j = 1000; j < 1100; j += 7)
        padded.mask.keyKeep[static_cast<size_t>(j)] = 0;
    for (const auto& [name, options] :
        { std::pair { "causal", causal }, { "sliding window", window }, { "padded", padded } }) {
        SCOPED_TRACE(name);
        const test::TileCase c { name, 1, 1, 1100, 1100, 8, options, {} };
        const Materialized m = materialize(c, 1);
        const AttentionSource source(storeOf(m), c.options);
        int64_t blocks = 0, next = 0;
        double worst = 0;
        source.forEachRowBlock(0, 0, [&](int64_t q0, int64_t rows, const float* p) {
            ASSERT_EQ(q0, next);
            next += rows;
            ++blocks;
            for (int64_t i = 0; i < rows; ++i)
                for (int64_t j = 0; j < c.nk; ++j) {
                    const float expected = m.probs[0].at({ 0, q0 + i, j });
                    if (!keyVisible(c.options.mask, q0 + i, j)) {
                        ASSERT_EQ(p[i * c.nk + j], 0.0f) << "row " << q0 + i << " key " << j;
                    }
                    worst = std::max(worst, std::fabs(double(p[i * c.nk + j]) - expected));
                }
        });
        EXPECT_EQ(next, c.nq);
        EXPECT_GE(blocks, 2); // the buffer was reused
        EXPECT_LE(worst, kTileTolerance);
    }
}

TEST(AttentionSource, BadRequestsAreErrors)
{
    const test::TileCase c = test::tileCases()[0];
    const Materialized m = materialize(c, 1);
    const AttentionSource source(storeOf(m), c.options);
    EXPECT_THROW(source.tile(0, { 2, 0, 1, 0, 1 }), Error); // head
    EXPECT_THROW(source.tile(1, { 0, 0, 1, 0, 1 }), Error); // layer
    EXPECT_THROW(source.tile(0, { 0, 0, 38, 0, 1 }), Error); // rows
    EXPECT_THROW(source.tile(0, { 0, 0, 1, 5, 4 }), Error); // columns
    EXPECT_EQ(source.tile(0, { 0, 3, 3, 0, 37 })->numel(), 0);
    AttentionOptions biased = c.options;
    const Tensor bias({ 37, 37 });
    biased.mask.bias = &bias;
    EXPECT_THROW(AttentionSource(storeOf(m), biased), Error);
    EXPECT_THROW(OwnedQueryKeys({ m.q[0] }, { test::normalTensor({ 3, 37, 16 }, 1) }), Error); // 2 heads over 3
}

TEST(LruCache, KeepsTheMostRecentWithinItsBudget)
{
    LruCache<int, int> cache(10);
    cache.insert(1, std::make_shared<const int>(1), 4);
    cache.insert(2, std::make_shared<const int>(2), 4);
    ASSERT_TRUE(cache.find(1)); // 1 is now the most recent
    cache.insert(3, std::make_shared<const int>(3), 4); // over budget: drops 2
    EXPECT_FALSE(cache.find(2));
    EXPECT_EQ(*cache.find(1), 1);
    EXPECT_EQ(*cache.find(3), 3);
    EXPECT_EQ(cache.bytes(), 8u);
    cache.insert(4, std::make_shared<const int>(4), 11); // larger than the budget: not kept
    EXPECT_FALSE(cache.find(4));
    EXPECT_EQ(cache.size(), 0u);
}

} // namespace
} // namespace attn
