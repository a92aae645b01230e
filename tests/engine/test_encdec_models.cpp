// SPDX-License-Identifier: MIT
// MarianMT, BART, T5, Whisper and a ViT + GPT-2 captioner against the hf-tiny goldens: encoder, decoder and cross attention, hidden states,
// logits, greedy ids and step logits, and step-by-step decoding over the KV cache against the full forward.
#include "model/model_loader.h"
#include "model/seq2seq_model.h"
#include "model_test_util.h"

#include <gtest/gtest.h>

#include <cstring>

namespace attn {
namespace {

using test::maxAbsDiff;

class EncDecParity : public ::testing::TestWithParam<std::string> {
protected:
    EncDecParity()
        : fx(GetParam())
    {
        model = std::dynamic_pointer_cast<const EncoderDecoderModel>(loadModel(fx.dir));
    }

    EncoderInput source() const
    {
        EncoderInput in;
        if (GetParam() == "whisper")
            in.features = fx.tensor("input_features.npy");
        else if (GetParam() == "vision-encoder-decoder")
            in.pixels = fx.tensor("pixel_values.npy");
        else
            in.tokens = fx.ids("input_ids.npy");
        return in;
    }

    std::string layerAttention(const char* stem, int64_t l) const
    {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s.L%02lld.npy", stem, static_cast<long long>(l));
        return buf;
    }

    test::Fixture fx;
    std::shared_ptr<const EncoderDecoderModel> model;
};

TEST_P(EncDecParity, FullForwardMatchesGoldens)
{
    ASSERT_TRUE(model) << GetParam() << " did not load as an encoder-decoder";
    ForwardOptions options;
    options.wantHiddenStates = true;
    const auto enc = model->encode(source(), options);
    KvCache cache = model->newDecoderCache();
    const Seq2SeqStepResult dec = model->decode(*enc, cache, fx.ids("decoder_input_ids.npy"), options);

    const int64_t L = model->config().numLayers, Ld = model->decoderLayers();
    ASSERT_EQ(enc->attention.size(), static_cast<size_t>(L));
    ASSERT_EQ(dec.attention.size(), static_cast<size_t>(Ld));
    ASSERT_EQ(dec.crossAttention.size(), static_cast<size_t>(Ld));
    for (int64_t l = 0; l < L; ++l)
        EXPECT_LE(maxAbsDiff(enc->attention[l], fx.tensor(layerAttention("encoder_attentions", l))),
            fx.tolerance("encoder_attentions"))
            << "encoder layer " << l;
    for (int64_t l = 0; l < Ld; ++l) {
        EXPECT_LE(maxAbsDiff(dec.attention[l], fx.tensor(layerAttention("decoder_attentions", l))),
            fx.tolerance("decoder_attentions"))
            << "decoder layer " << l;
        EXPECT_LE(maxAbsDiff(dec.crossAttention[l], fx.tensor(layerAttention("cross_attentions", l))),
            fx.tolerance("cross_attentions"))
            << "cross layer " << l;
    }
    ASSERT_EQ(enc->hiddenStates.size(), static_cast<size_t>(L + 1));
    ASSERT_EQ(dec.hiddenStates.size(), static_cast<size_t>(Ld + 1));
    // Whisper's encoder_hidden_states.00/.01.npy are stored in Fortran order; readNpy returns them in C order.
    for (int64_t i = 0; i <= L; ++i)
        EXPECT_LE(maxAbsDiff(enc->hiddenStates[i], fx.tensor(fx.layerFile("encoder_hidden_states", i))),
            fx.tolerance("encoder_hidden_states"))
            << "encoder hidden state " << i;
    for (int64_t i = 0; i <= Ld; ++i)
        EXPECT_LE(maxAbsDiff(dec.hiddenStates[i], fx.tensor(fx.layerFile("decoder_hidden_states", i))),
            fx.tolerance("decoder_hidden_states"))
            << "decoder hidden state " << i;
    EXPECT_LE(maxAbsDiff(dec.logits, fx.tensor("logits.npy")), fx.tolerance("logits"));
}

TEST_P(EncDecParity, GreedyIdsAndStepLogits)
{
    ASSERT_TRUE(model);
    const auto enc = model->encode(source(), {});
    Tensor stepLogits;
    const std::vector<int64_t> ids = greedyDecode(*model, *enc, 8, false, &stepLogits);
    EXPECT_EQ(ids, fx.ids("greedy_ids.npy"));
    EXPECT_LE(maxAbsDiff(stepLogits, fx.tensor("greedy_step_logits.npy")), fx.tolerance("logits"));
}

// One position at a time over the cache must give what the whole target gives at once: logits, self-attention
// rows (over the keys so far) and cross-attention rows.
TEST_P(EncDecParity, StepByStepEqualsFullForward)
{
    ASSERT_TRUE(model);
    const auto enc = model->encode(source(), {});
    const std::vector<int64_t> target = fx.ids("decoder_input_ids.npy");
    KvCache full = model->newDecoderCache();
    const Seq2SeqStepResult all = model->decode(*enc, full, target, {});
    KvCache cache = model->newDecoderCache();
    const int64_t T = static_cast<int64_t>(target.size()), S = enc->length(), H = model->decoderHeads();
    double logitErr = 0.0, selfErr = 0.0, crossErr = 0.0;
    for (int64_t t = 0; t < T; ++t) {
        const Seq2SeqStepResult step = model->decode(*enc, cache, { target[t] }, {});
        ASSERT_EQ(step.firstPosition, t);
        logitErr = std::max(logitErr, maxAbsDiff(step.logits, test::rowsOf(all.logits, t, t + 1)));
        for (size_t l = 0; l < all.attention.size(); ++l) {
            Tensor selfRow({ H, 1, t + 1 }), crossRow({ H, 1, S });
            for (int64_t h = 0; h < H; ++h) {
                std::memcpy(
                    selfRow.data() + h * (t + 1), all.attention[l].data() + (h * T + t) * T, sizeof(float) * (t + 1));
                std::memcpy(crossRow.data() + h * S, all.crossAttention[l].data() + (h * T + t) * S, sizeof(float) * S);
            }
            selfErr = std::max(selfErr, maxAbsDiff(step.attention[l], selfRow));
            crossErr = std::max(crossErr, maxAbsDiff(step.crossAttention[l], crossRow));
        }
    }
    EXPECT_EQ(cache.length(), T);
    // The same fp32 arithmetic in another grouping: the goldens' own tolerances apply.
    EXPECT_LE(logitErr, fx.tolerance("logits"));
    EXPECT_LE(selfErr, fx.tolerance("decoder_attentions"));
    EXPECT_LE(crossErr, fx.tolerance("cross_attentions"));
}

INSTANTIATE_TEST_SUITE_P(
    HfTiny, EncDecParity, ::testing::Values("marian", "bart", "t5", "whisper", "vision-encoder-decoder"));

TEST(EncDecModels, RejectsWrongSourceKinds)
{
    const auto marian
        = std::dynamic_pointer_cast<const EncoderDecoderModel>(loadModel(test::sharedPath("fixtures/hf-tiny/marian")));
    const auto whisper
        = std::dynamic_pointer_cast<const EncoderDecoderModel>(loadModel(test::sharedPath("fixtures/hf-tiny/whisper")));
    ASSERT_TRUE(marian && whisper);
    EncoderInput features;
    features.features = Tensor({ 80, 10 });
    EXPECT_THROW(marian->encode(features, {}), Error);
    EXPECT_THROW(whisper->encode(EncoderInput { { 1, 2 }, {} }, {}), Error);
    EncoderInput wrongBins;
    wrongBins.features = Tensor({ 40, 10 });
    EXPECT_THROW(whisper->encode(wrongBins, {}), Error);
    EXPECT_THROW(marian->encode(EncoderInput { { 5, 128 }, {} }, {}), Error); // id == vocab size
    EXPECT_THROW(marian->encode(EncoderInput { std::vector<int64_t>(65, 5), {} }, {}), Error); // > 64 positions
    const auto enc = marian->encode(EncoderInput { { 5, 6 }, {} }, {});
    KvCache cache = marian->newDecoderCache();
    EXPECT_THROW(marian->decode(*enc, cache, { 3, 999 }, {}), Error);
    EXPECT_EQ(cache.length(), 0); // a failed step leaves the cache as it was
}

} // namespace
} // namespace attn
