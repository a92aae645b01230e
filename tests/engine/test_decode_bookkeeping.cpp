// SPDX-License-Identifier: MIT
// The per-step bookkeeping a decode step does besides the forward: the KV cache's row counts and the next-token
// distribution the timeline records. Both were cut down for speed (issue 22), so these check that what is kept is
// still exact.
#include "core/error.h"
#include "core/tensor.h"
#include "model/kv_cache.h"
#include "session/decode_timeline.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace attn {
namespace {

/// Every tensor of the cache is [1, length, dim] with exactly length x dim values, rows that are `marker` x row + dim
/// index (so a row appended twice, lost or shifted shows).
void expectRows(const KvCache& cache, int64_t length, int64_t extra, const char* when)
{
    const auto check = [&](const Tensor& t, int64_t dim, int64_t layer, int64_t head, const char* what) {
        const int64_t rows = length + extra;
        ASSERT_EQ(t.shape(), (Shape { 1, rows, dim })) << what << " L" << layer << " H" << head << " " << when;
        ASSERT_EQ(static_cast<int64_t>(t.storage().size()), rows * dim) << what << " " << when;
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t i = 0; i < dim; ++i)
                ASSERT_EQ(t.data()[r * dim + i], static_cast<float>(1000 * layer + 100 * head + 10 * r + i))
                    << what << " L" << layer << " H" << head << " row " << r << " " << when;
    };
    for (int64_t l = 0; l < cache.numLayers(); ++l) {
        for (int64_t h = 0; h < cache.numQueryHeads(); ++h)
            check(cache.queries(l, h), 3, l, h, "queries");
        for (int64_t h = 0; h < cache.numKvHeads(); ++h) {
            check(cache.keys(l, h), 3, l, h, "keys");
            check(cache.values(l, h), 2, l, h, "values");
        }
    }
}

/// Rows [first, first + n) of every head of one layer, valued as expectRows reads them.
Tensor rowsOf(int64_t layer, int64_t heads, int64_t first, int64_t n, int64_t dim)
{
    Tensor t({ heads, n, dim });
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t r = 0; r < n; ++r)
            for (int64_t i = 0; i < dim; ++i)
                t.data()[(h * n + r) * dim + i] = static_cast<float>(1000 * layer + 100 * h + 10 * (first + r) + i);
    return t;
}

void appendLayers(KvCache& cache, int64_t first, int64_t n)
{
    for (int64_t l = 0; l < cache.numLayers(); ++l)
        cache.append(l, rowsOf(l, 4, first, n, 3), rowsOf(l, 2, first, n, 3), rowsOf(l, 2, first, n, 2));
}

TEST(KvCacheRows, EveryHeadsShapeFollowsItsRowsThroughAppendsRollbacksAndTruncations)
{
    KvCache cache(2, 4, 2, 3, 2);
    cache.reserve(4); // the appends below go past it: growing the storage keeps the rows and shapes too
    expectRows(cache, 0, 0, "new");
    appendLayers(cache, 0, 3);
    expectRows(cache, 0, 3, "appended");
    cache.commit(3);
    expectRows(cache, 3, 0, "committed");
    for (int64_t p = 3; p < 7; ++p) {
        appendLayers(cache, p, 1);
        cache.commit(1);
    }
    expectRows(cache, 7, 0, "stepped");
    appendLayers(cache, 7, 2);
    cache.rollback();
    expectRows(cache, 7, 0, "rolled back");
    cache.truncate(5);
    expectRows(cache, 5, 0, "truncated");
    KvCache reused(2, 4, 2, 3, 2);
    for (int64_t l = 0; l < 2; ++l)
        reused.appendFrom(cache, l, 0, 5);
    reused.commit(5);
    expectRows(reused, 5, 0, "reused");
    EXPECT_THROW(cache.commit(1), Error); // nothing appended
}

TEST(DecodeTimelineDistribution, OffRecordsTheSameTokensWithNoCandidatesAndOnRecordsThemAgain)
{
    const std::string path = test::sharedPath("models/stories260K/stories260K.bin");
    const auto with = openDecodeTimeline(path), without = openDecodeTimeline(path);
    without->setRecordsDistribution(false);
    with->prompt({ 1 });
    without->prompt({ 1 });
    for (int i = 0; i < 40; ++i) {
        const DecodeStepPtr a = with->step(), b = without->step();
        ASSERT_TRUE(a && b) << i;
        EXPECT_EQ(a->token.id, b->token.id) << i;
        EXPECT_EQ(a->token.text, b->token.text) << i;
        EXPECT_EQ(a->keyNorms, b->keyNorms) << i;
        EXPECT_EQ(a->candidates.size(), size_t(DecodeTimeline::kCandidates)) << i;
        EXPECT_TRUE(std::isfinite(a->probability) && std::isfinite(a->entropyBits)) << i;
        EXPECT_TRUE(b->candidates.empty()) << i;
        EXPECT_TRUE(std::isnan(b->probability) && std::isnan(b->entropyBits)) << i;
    }
    without->setRecordsDistribution(true);
    const DecodeStepPtr a = with->step(), b = without->step();
    ASSERT_TRUE(a && b);
    ASSERT_EQ(a->candidates.size(), b->candidates.size());
    for (size_t i = 0; i < a->candidates.size(); ++i) {
        EXPECT_EQ(a->candidates[i].token.id, b->candidates[i].token.id) << i;
        EXPECT_EQ(a->candidates[i].probability, b->candidates[i].probability) << i;
    }
    EXPECT_EQ(a->probability, b->probability);
    EXPECT_EQ(a->entropyBits, b->entropyBits);
}

} // namespace
} // namespace attn
