// SPDX-License-Identifier: MIT
// Beam search: width 1 is greedy decoding (ids and cross-attention history), wider beams never score worse than
// greedy, and each hypothesis keeps one cross-attention tensor per generated token.
#include "model/model_loader.h"
#include "model/rnn_seq2seq.h"
#include "model/seq2seq_model.h"
#include "model_test_util.h"
#include "session/beam_search.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn {
namespace {

/// Sum of log-probabilities of `tokens` under teacher forcing.
double sequenceLogProb(const BeamDecoder& start, int64_t first, const std::vector<int64_t>& tokens)
{
    auto d = start.clone();
    double sum = 0.0;
    int64_t next = first;
    for (int64_t t : tokens) {
        const BeamStepOutput o = d->step(next);
        double z = 0.0;
        const float m = *std::max_element(o.logits.begin(), o.logits.end());
        for (float x : o.logits)
            z += std::exp(static_cast<double>(x) - m);
        sum += o.logits[t] - m - std::log(z);
        next = t;
    }
    return sum;
}

TEST(EncDecBeam, WidthOneIsGreedyOnTheFixtures)
{
    for (const std::string name : { "marian", "bart", "t5" }) {
        const test::Fixture fx(name);
        const auto model = std::dynamic_pointer_cast<const EncoderDecoderModel>(loadModel(fx.dir));
        ASSERT_TRUE(model);
        const auto enc = model->encode(EncoderInput { fx.ids("input_ids.npy"), {} }, {});
        BeamOptions o;
        o.width = 1;
        o.maxNewTokens = 8;
        o.startToken = model->decoderStartToken();
        o.eosToken = -1; // the goldens never stop at EOS
        const auto beams = beamSearch(*makeBeamDecoder(model, enc), o);
        ASSERT_EQ(beams.size(), 1u);
        EXPECT_EQ(beams[0].tokens, fx.ids("greedy_ids.npy")) << name;
        ASSERT_EQ(beams[0].crossAttention.size(), 8u);
        // The first step's cross-attention is the decoder start token's row of every layer.
        KvCache cache = model->newDecoderCache();
        const Seq2SeqStepResult first = model->decode(*enc, cache, { model->decoderStartToken() }, {});
        const Tensor& h0 = beams[0].crossAttention[0];
        ASSERT_EQ(h0.shape(), (Shape { model->decoderLayers(), model->decoderHeads(), enc->length() }));
        for (size_t l = 0; l < first.crossAttention.size(); ++l)
            for (int64_t i = 0; i < first.crossAttention[l].numel(); ++i)
                EXPECT_EQ(h0.data()[static_cast<int64_t>(l) * first.crossAttention[l].numel() + i],
                    first.crossAttention[l].data()[i]);
    }
}

TEST(EncDecBeam, WiderBeamsScoreAtLeastGreedyOnTheToy)
{
    const auto model = loadRnnSeq2Seq(test::sharedPath("models/seq2seq-attn-de-en-toy"));
    for (const char* src : { "ich bin das schon so gewohnt .", "wir sind chronische geschichtenerzahler ." }) {
        const auto enc = std::make_shared<const RnnEncoding>(model->encode(model->sourceIds(src)));
        const auto start = makeBeamDecoder(model, enc);
        BeamOptions o;
        o.startToken = model->startToken();
        o.eosToken = model->eosToken();
        o.maxNewTokens = model->maxLength();
        o.width = 1;
        const BeamHypothesis greedy = beamSearch(*start, o).front();
        EXPECT_TRUE(greedy.finished);
        EXPECT_NEAR(greedy.logProb, sequenceLogProb(*start, o.startToken, greedy.tokens), 1e-4);
        o.width = 4;
        const auto beams = beamSearch(*start, o);
        ASSERT_FALSE(beams.empty());
        ASSERT_LE(beams.size(), 4u);
        for (size_t b = 1; b < beams.size(); ++b)
            EXPECT_GE(beams[b - 1].score, beams[b].score);
        EXPECT_GE(beams.front().score, greedy.score - 1e-9);
        for (const BeamHypothesis& h : beams) {
            EXPECT_NEAR(h.logProb, sequenceLogProb(*start, o.startToken, h.tokens), 1e-4);
            EXPECT_EQ(h.crossAttention.size(), h.tokens.size());
            EXPECT_EQ(h.crossAttention.front().shape(), (Shape { 1, 1, 10 }));
        }
    }
    EXPECT_THROW(beamSearch(*makeBeamDecoder(model, std::make_shared<const RnnEncoding>(model->encode({ 2, 1 }))),
                     BeamOptions { 0, 5, 0, 1, 1.0 }),
        Error);
}

} // namespace
} // namespace attn
