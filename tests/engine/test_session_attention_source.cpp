// SPDX-License-Identifier: MIT
// A session's attention source on real fixtures: the decoder's tiles (read from the KV cache) and the encoder's (from
// the queries and keys kept without attention capture) equal the probabilities the forward materialized; a source
// outlived by a rewind refuses to answer instead of showing other positions; lastLogitsOnly keeps the last row.
#include "model/model_loader.h"
#include "model_test_util.h"
#include "session/session.h"

#include <gtest/gtest.h>

namespace attn {
namespace {

using test::maxAbsDiff;

Tensor headRows(const Tensor& layer, int64_t head, int64_t q0, int64_t q1, int64_t k0, int64_t k1)
{
    Tensor out({ q1 - q0, k1 - k0 });
    for (int64_t i = q0; i < q1; ++i)
        for (int64_t j = k0; j < k1; ++j)
            out.at({ i - q0, j - k0 }) = layer.at({ head, i, j });
    return out;
}

class SessionSource : public ::testing::TestWithParam<const char*> { };

TEST_P(SessionSource, DecoderTilesEqualTheMaterializedForward)
{
    const test::Fixture fx(GetParam());
    const auto model = loadModel(fx.dir);
    Session recorded(model);
    const auto r = recorded.prefill(fx.ids("input_ids.npy"));
    ForwardOptions lean;
    lean.wantAttention = false; // no L x H x T x T anywhere
    Session session(model, lean);
    const auto result = session.prefill(fx.ids("input_ids.npy"));
    EXPECT_TRUE(result->attention.empty());
    const auto source = session.attentionSource();
    const int64_t n = session.length();
    ASSERT_EQ(source->numQueries(), n);
    for (int64_t l = 0; l < model->config().numLayers; ++l)
        for (int64_t h = 0; h < model->config().numHeads; ++h) {
            const Tensor& layer = r->attention[static_cast<size_t>(l)];
            EXPECT_LE(maxAbsDiff(*source->tile(l, { h, 1, n, 0, n / 2 }), headRows(layer, h, 1, n, 0, n / 2)), 1e-6);
            EXPECT_LE(maxAbsDiff(*source->rows(l, h, 0, n), headRows(layer, h, 0, n, 0, n)), 1e-6);
        }
    // Stepping on leaves the source's positions alone; rewinding below them makes it refuse.
    session.step(1);
    EXPECT_NO_THROW(source->tile(0, { 0, 0, 1, 0, 1 }));
    session.rewind(3);
    EXPECT_THROW(source->tile(1, { 0, 0, 1, 0, 1 }), Error);
}

TEST_P(SessionSource, LastLogitsOnlyGiveTheLastRowOfTheFullLogits) {
    const test::Fixture fx(GetParam());
    const auto model = loadModel(fx.dir);
    const auto full = Session(model).prefill(fx.ids("input_ids.npy"));
    ForwardOptions last;
    last.lastLogitsOnly = true;
    const auto r = Session(model, last).prefill(fx.ids("input_ids.npy"));
    const int64_t n = full->logits.dim(0);
    ASSERT_EQ(r->logits.shape(), (Shape { 1, full->logits.dim(1) }));
    // One row through the head's GEMM instead of n: other kernels, float32 rounding of the fixture's logits (< 1e-5).
    EXPECT_LE(maxAbsDiff(r->logits, test::rowsOf(full->logits, n - 1, n)), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SessionSource, ::testing::Values("gpt2", "llama"));

TEST(SessionSourceEncoder, BertTilesFromKeptQueriesAndKeysEqualCapturedAttention)
{
    const test::Fixture fx("bert");
    const auto model = loadModel(fx.dir);
    std::vector<int64_t> ids = fx.ids("input_ids.npy"), types = fx.ids("token_type_ids.npy");
    const size_t real = ids.size();
    ids.insert(ids.end(), { 0, 0 });
    types.insert(types.end(), { 0, 0 });
    std::vector<uint8_t> mask(real, 1);
    mask.insert(mask.end(), { 0, 0 }); // padded keys: the source must mask them too
    Session recorded(model);
    const auto r = recorded.prefill(ids, types, mask);
    ForwardOptions lean;
    lean.wantAttention = false;
    lean.wantQueryKeys = true;
    Session session(model, lean);
    EXPECT_THROW(Session(model).attentionSource(), Error); // nothing encoded yet
    session.prefill(ids, types, mask);
    const auto source = session.attentionSource();
    const int64_t n = static_cast<int64_t>(ids.size());
    for (int64_t l = 0; l < model->config().numLayers; ++l)
        for (int64_t h = 0; h < model->config().numHeads; ++h)
            EXPECT_LE(maxAbsDiff(*source->tile(l, { h, 0, n, 1, n }),
                          headRows(r->attention[static_cast<size_t>(l)], h, 0, n, 1, n)),
                1e-6);
    EXPECT_EQ(source->tile(0, { 0, 0, 1, n - 1, n })->at({ 0, 0 }), 0.0f);
}

} // namespace
} // namespace attn
