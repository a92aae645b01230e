// SPDX-License-Identifier: MIT
// BERT (token types, MLM head) against the HF goldens, and padding: masked keys get exactly 0.
#include "model/model_loader.h"
#include "model_test_util.h"
#include "session/session.h"

#include <gtest/gtest.h>

namespace attn {
namespace {

using test::Fixture;
using test::maxAbsDiff;

std::vector<uint8_t> maskOf(const std::vector<int64_t>& m) {
    return std::vector<uint8_t>(m.begin(), m.end());
}

TEST(BertModel, MatchesHfAttentionHiddenStatesAndLogits) {
    const Fixture fx("bert");
    const auto model = loadModel(fx.dir);
    ASSERT_EQ(model->kind(), ModelKind::Encoder);
    ForwardOptions options;
    options.wantHiddenStates = true;
    Session session(model, options);
    EXPECT_FALSE(session.isDecoder());
    const auto r
        = session.prefill(fx.ids("input_ids.npy"), fx.ids("token_type_ids.npy"), maskOf(fx.ids("attention_mask.npy")));
    const test::GoldenErrors e = test::goldenErrors(*r, fx, model->config().numLayers, "bert");
    // fp32 weights and goldens: 1e-5 (tighter than or equal to the manifest's suggestion) for attention and logits.
    EXPECT_LE(e.attention, std::min(1e-5, fx.tolerance("attentions")));
    EXPECT_LE(e.hidden, fx.tolerance("hidden_states"));
    EXPECT_LE(e.logits, std::min(1e-5, fx.tolerance("logits")));

    // The view API derives the same rows from the last encoding.
    const Tensor rows = session.attentionRows(1, 2, 3, 5);
    EXPECT_EQ(rows.at({ 1, 7 }), r->attention[1].at({ 2, 4, 7 }));
    EXPECT_THROW(session.step(5), Error);
}

TEST(BertModel, PaddedKeysGetZeroAndRealRowsAreUnchanged) {
    const Fixture fx("bert");
    const auto model = loadModel(fx.dir);
    Session session(model);
    std::vector<int64_t> ids = fx.ids("input_ids.npy"), types = fx.ids("token_type_ids.npy");
    const auto plain = session.prefill(ids, types);
    const size_t n = ids.size();
    ids.insert(ids.end(), { 0, 0, 0 });
    types.insert(types.end(), { 0, 0, 0 });
    std::vector<uint8_t> mask(n, 1);
    mask.insert(mask.end(), { 0, 0, 0 });
    const auto padded = session.prefill(ids, types, mask);
    const auto N = static_cast<int64_t>(n);
    for (size_t l = 0; l < plain->attention.size(); ++l) {
        const Tensor& p = padded->attention[l];
        ASSERT_EQ(p.shape(), (Shape { 4, N + 3, N + 3 }));
        for (int64_t h = 0; h < 4; ++h)
            for (int64_t q = 0; q < N + 3; ++q)
                for (int64_t k = 0; k < N + 3; ++k) {
                    if (k >= N) {
                        EXPECT_EQ(p.at({ h, q, k }), 0.0f);
                    } else if (q < N) {
                        EXPECT_NEAR(p.at({ h, q, k }), plain->attention[l].at({ h, q, k }), 1e-6);
                    }
                }
    }
    EXPECT_THROW(session.prefill({ 1, 2 }, { 0 }), Error);
    EXPECT_THROW(session.prefill({ 1, 100000 }), Error);
}

} // namespace
} // namespace attn
