// SPDX-License-Identifier: MIT
// A derived run's head statistics and thumbnails gathered from the forward's own probabilities
// (ForwardOptions::observeAttention into a SummaryCollector) equal what the attention source computes by streaming
// each head again, on fixtures with causal, GQA and sliding-window heads; heads whose rows were not all seen in order
// are left to the source.
#include "attention_source/summary_collector.h"
#include "core/error.h"
#include "model/model_loader.h"
#include "model_test_util.h"
#include "session/session.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn {
namespace {

class Collected : public ::testing::TestWithParam<const char*> { };

TEST_P(Collected, StatisticsAndThumbnailsEqualAStreamedPassOverEachHead)
{
    const test::Fixture fx(GetParam());
    const auto model = loadModel(fx.dir);
    const ModelConfig& c = model->config();
    const std::vector<int64_t> ids = fx.ids("input_ids.npy");
    const auto n = static_cast<int64_t>(ids.size());
    MaskSpec mask;
    mask.causal = true;
    mask.slidingWindow = c.slidingWindow;
    SummaryCollector collector(c.numLayers, c.numHeads, n, mask);
    ForwardOptions options;
    options.wantAttention = false;
    options.observeAttention = [&](int64_t l, int64_t h, int64_t q, int64_t rows, const float* p) {
        collector.add(l, h, q, rows, p);
    };
    Session session(model, options);
    session.prefill(ids);
    const auto adopted = session.attentionSource();
    EXPECT_EQ(collector.deliver(*adopted), c.numLayers * c.numHeads);
    const auto streamed = session.attentionSource(); // a second source: nothing cached, every head streamed
    for (int64_t l = 0; l < c.numLayers; ++l)
        for (int64_t h = 0; h < c.numHeads; ++h) {
            SCOPED_TRACE("layer " + std::to_string(l) + " head " + std::to_string(h));
            ASSERT_TRUE(adopted->hasSummary(l, h));
            ASSERT_FALSE(streamed->hasSummary(l, h));
            // The same probabilities summed in the same order, up to the row products' rounding (the forward's
            // and the source's GEMMs block rows differently): 1e-6, as tiles against the materialized matrix.
            const HeadStats a = adopted->headStats(l, h), b = streamed->headStats(l, h);
            EXPECT_NEAR(a.entropy, b.entropy, 1e-5);
            EXPECT_NEAR(a.normalizedEntropy, b.normalizedEntropy, 1e-5);
            EXPECT_NEAR(a.meanDistance, b.meanDistance, 1e-5);
            EXPECT_NEAR(a.sinkMass, b.sinkMass, 1e-6);
            EXPECT_NEAR(a.previousToken, b.previousToken, 1e-6);
            EXPECT_NEAR(a.diagonal, b.diagonal, 1e-6);
            EXPECT_EQ(a.rows, b.rows);
            const auto ta = adopted->overview(l, h, AttentionSource::kThumbnailSide);
            const auto tb = streamed->overview(l, h, AttentionSource::kThumbnailSide);
            ASSERT_EQ(ta->levels.size(), tb->levels.size());
            for (size_t i = 0; i < ta->levels.size(); ++i) {
                ASSERT_EQ(ta->levels[i].block, tb->levels[i].block);
                ASSERT_EQ(ta->levels[i].max.size(), tb->levels[i].max.size());
                for (size_t j = 0; j < ta->levels[i].max.size(); ++j) {
                    EXPECT_NEAR(ta->levels[i].max[j], tb->levels[i].max[j], 1e-6);
                    EXPECT_NEAR(ta->levels[i].mean[j], tb->levels[i].mean[j], 1e-6);
                }
            }
        }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Collected, ::testing::Values("gpt2", "llama", "mistral"));

TEST(SummaryCollector, HeadsNotSeenWholeAndInOrderAreLeftToTheSource)
{
    const test::Fixture fx("gpt2");
    const auto model = loadModel(fx.dir);
    ForwardOptions lean;
    lean.wantAttention = false;
    Session session(model, lean);
    session.prefill(fx.ids("input_ids.npy"));
    const auto source = session.attentionSource();
    const int64_t n = session.length();
    const Tensor rows = *source->rows(0, 0, 0, n);
    MaskSpec causal;
    causal.causal = true;
    SummaryCollector collector(model->config().numLayers, model->config().numHeads, n, causal);
    collector.add(0, 0, 0, n, rows.data()); // whole: delivered
    collector.add(0, 1, 1, n - 1, rows.data() + n); // starts at row 1: left out
    collector.add(1, 0, 0, 2, rows.data()); // only two rows: left out
    EXPECT_EQ(collector.deliver(*source), 1);
    EXPECT_TRUE(source->hasSummary(0, 0));
    EXPECT_FALSE(source->hasSummary(0, 1));
    EXPECT_FALSE(source->hasSummary(1, 0));
    EXPECT_THROW(SummaryCollector(0, 1, 1, causal), Error);
}

} // namespace
} // namespace attn
