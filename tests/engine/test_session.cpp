// SPDX-License-Identifier: MIT
// Session mechanics on real fixtures: steps equal the full forward, rewind then re-step reproduces the same results,
// derived attention rows equal the recorded ones, and failed calls leave the session unchanged.
#include "model/model_loader.h"
#include "model_test_util.h"
#include "session/session.h"

#include <gtest/gtest.h>

namespace attn {
namespace {

using test::maxAbsDiff;

/// Row q of a [heads, Q, K] tensor, first `keys` keys, as [heads, keys].
Tensor attentionRow(const Tensor& a, int64_t q, int64_t keys) {
    const int64_t heads = a.dim(0), Q = a.dim(1), K = a.dim(2);
    Tensor out({ heads, keys });
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t k = 0; k < keys; ++k)
            out.at({ h, k }) = a.data()[(h * Q + q) * K + k];
    return out;
}

class SessionOnFixture : public ::testing::TestWithParam<const char*> { };

TEST_P(SessionOnFixture, StepByStepEqualsFullForward) {
    const test::Fixture fx(GetParam());
    const auto model = loadModel(fx.dir);
    const std::vector<int64_t> ids = fx.ids("input_ids.npy");
    const auto n = static_cast<int64_t>(ids.size());
    Session full(model);
    const auto all = full.prefill(ids);

    Session stepped(model);
    double attn = 0, logits = 0;
    for (int64_t p = 0; p < n; ++p) {
        const auto r = p == 0 ? stepped.prefill({ ids[0] }) : stepped.step(ids[static_cast<size_t>(p)]);
        ASSERT_EQ(r->firstPosition, p);
        ASSERT_EQ(r->logits.dim(0), 1);
        logits = std::max(logits, maxAbsDiff(r->logits, test::rowsOf(all->logits, p, p + 1)));
        for (size_t l = 0; l < all->attention.size(); ++l) {
            ASSERT_EQ(r->attention[l].shape(), (Shape { model->config().numHeads, 1, p + 1 }));
            const Tensor row = std::move(Tensor(r->attention[l])).reshaped({ model->config().numHeads, p + 1 });
            attn = std::max(attn, maxAbsDiff(row, attentionRow(all->attention[l], p, p + 1)));
        }
    }
    std::printf("%s: step vs full max abs diff attention %.2e, logits %.2e\n", GetParam(), attn, logits);
    EXPECT_LE(attn, 1e-5);
    EXPECT_LE(logits, 1e-5);
    // Causal: the full forward's entries above the diagonal are exactly zero.
    EXPECT_EQ(all->attention[0].at({ 0, 0, n - 1 }), 0.0f);
}

TEST_P(SessionOnFixture, RewindThenReStepReproduces) {
    const test::Fixture fx(GetParam());
    const auto model = loadModel(fx.dir);
    const std::vector<int64_t> ids = fx.ids("input_ids.npy");
    Session session(model);
    session.prefill(std::vector<int64_t>(ids.begin(), ids.end() - 3));
    const auto a1 = session.step(ids[ids.size() - 3]);
    const auto a2 = session.step(ids[ids.size() - 2]);
    session.rewind(2);
    EXPECT_EQ(session.length(), static_cast<int64_t>(ids.size()) - 3);
    const auto b1 = session.step(ids[ids.size() - 3]);
    const auto b2 = session.step(ids[ids.size() - 2]);
    EXPECT_EQ(maxAbsDiff(a1->logits, b1->logits), 0.0);
    EXPECT_EQ(maxAbsDiff(a2->logits, b2->logits), 0.0);
    for (size_t l = 0; l < a2->attention.size(); ++l)
        EXPECT_EQ(maxAbsDiff(a2->attention[l], b2->attention[l]), 0.0);
    // A different token after rewinding changes the result (the cache really was cut).
    session.rewind(1);
    const auto c2 = session.step(ids[0]);
    EXPECT_GT(maxAbsDiff(a2->logits, c2->logits), 1e-3);
    EXPECT_THROW(session.rewind(session.length() + 1), Error);
}

TEST_P(SessionOnFixture, DerivedAttentionRowsEqualRecordedOnes) {
    const test::Fixture fx(GetParam());
    const auto model = loadModel(fx.dir);
    Session session(model);
    const auto r = session.prefill(fx.ids("input_ids.npy"));
    const int64_t n = session.length();
    for (int64_t l = 0; l < model->config().numLayers; ++l)
        for (int64_t h = 0; h < model->config().numHeads; ++h) {
            const Tensor rows = session.attentionRows(l, h, 2, n);
            for (int64_t q = 2; q < n; ++q)
                for (int64_t k = 0; k < n; ++k)
                    ASSERT_NEAR(rows.at({ q - 2, k }), r->attention[static_cast<size_t>(l)].at({ h, q, k }), 1e-6);
        }
    EXPECT_THROW(session.attentionRows(0, model->config().numHeads, 0, 1), Error);
    EXPECT_THROW(session.attentionRows(0, 0, 0, n + 1), Error);
}

TEST_P(SessionOnFixture, FailedCallsLeaveTheSessionUnchanged) {
    const test::Fixture fx(GetParam());
    const auto model = loadModel(fx.dir);
    Session session(model);
    session.prefill({ 1, 2, 3 });
    EXPECT_THROW(session.step(model->config().vocabSize), Error);
    EXPECT_THROW(session.step(-1), Error);
    EXPECT_THROW(session.prefill(std::vector<int64_t>(static_cast<size_t>(model->config().maxPositions), 1)), Error);
    EXPECT_EQ(session.length(), 3);
    EXPECT_EQ(session.cache()->length(), 3);
    EXPECT_EQ(session.cache()->keys(0, 0).dim(1), 3);
    EXPECT_EQ(session.step(4)->firstPosition, 3);
}

TEST_P(SessionOnFixture, ReservedCacheDoesNotReallocate) {
    const test::Fixture fx(GetParam());
    Session session(loadModel(fx.dir));
    session.reserve(20);
    session.prefill({ 1 });
    const float* before = session.cache()->keys(0, 0).data();
    for (int i = 0; i < 19; ++i)
        session.step(2);
    EXPECT_EQ(session.cache()->keys(0, 0).data(), before);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SessionOnFixture, ::testing::Values("gpt2", "llama"));

} // namespace
} // namespace attn
