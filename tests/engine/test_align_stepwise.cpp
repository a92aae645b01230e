// SPDX-License-Identifier: MIT
// Step-by-step greedy decoding (align/stepwise_translation.h): on the GRU toy it reproduces the tutorial's 11
// translations and attention rows one step at a time; on the hf-tiny MarianMT fixture it gives HF's greedy ids, and
// each incremental (KV cache) cross-attention row, derived from the step's stored queries, equals the one of a
// single full decoder forward. Back restores the state exactly. Symmetrization of two directions on a hand-made
// example.
#include "align/alignment.h"
#include "align/stepwise_translation.h"
#include "model/model_loader.h"
#include "model/seq2seq_model.h"
#include "model_test_util.h"
#include "session/cross_attention_source.h"
#include "session/translator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace attn {
namespace {

StepwiseTranslation stepwise(const Translator& t, const std::string& source)
{
    return StepwiseTranslation(t.decoder(t.source(source).ids), t.startToken(), t.eosToken(), t.maxNewTokens());
}

TEST(AlignStepwise, GruToyReproducesTheTutorialStepByStep)
{
    const std::string toy = test::sharedPath("models/seq2seq-attn-de-en-toy");
    std::ifstream in(toy + "/reference_translations_with_attention.json");
    const nlohmann::json refs = nlohmann::json::parse(in);
    ASSERT_EQ(refs.size(), 11u);
    const Translator model(toy);
    for (const auto& ref : refs) {
        StepwiseTranslation decoding = stepwise(model, ref["src"].get<std::string>());
        const auto& attention = ref["attention"];
        while (!decoding.finished()) {
            const size_t before = decoding.tokens().size();
            decoding.step();
            ASSERT_EQ(decoding.tokens().size(), before + 1);
            ASSERT_EQ(decoding.crossAttention().size(), before + 1);
            // The new row is the tutorial's (PyTorch) attention of that output step, rounded to 6 decimals.
            const Tensor& row = decoding.crossAttention().back();
            ASSERT_EQ(row.shape(), (Shape { 1, 1, 10 }));
            ASSERT_LT(before, attention.size()) << ref["src"];
            for (int64_t s = 0; s < 10; ++s)
                EXPECT_NEAR(row.data()[s], attention[before][static_cast<size_t>(s)].get<double>(), 2e-6)
                    << ref["src"] << " step " << before << " key " << s;
        }
        EXPECT_EQ(model.text(decoding.tokens()), ref["hyp"].get<std::string>());
        EXPECT_EQ(decoding.crossAttention().size(), attention.size());
        // Width-1 beam search (what `translate` prints) chooses the same tokens with the same log-probability.
        BeamOptions options;
        options.width = 1;
        options.maxNewTokens = model.maxNewTokens();
        options.startToken = model.startToken();
        options.eosToken = model.eosToken();
        const BeamHypothesis greedy
            = beamSearch(*model.decoder(model.source(ref["src"].get<std::string>()).ids), options).front();
        EXPECT_EQ(decoding.tokens(), greedy.tokens);
        EXPECT_NEAR(decoding.logProb(), greedy.logProb, 1e-4);
        EXPECT_THROW(decoding.step(), Error);
    }
}

TEST(AlignStepwise, BackAndResetRestoreTheDecoderState)
{
    const Translator model(test::sharedPath("models/seq2seq-attn-de-en-toy"));
    StepwiseTranslation decoding = stepwise(model, "ich bin das schon so gewohnt .");
    for (int i = 0; i < 4; ++i)
        decoding.step();
    const std::vector<int64_t> tokens = decoding.tokens();
    const std::vector<Tensor> rows = decoding.crossAttention();
    const double logProb = decoding.logProb();
    decoding.back();
    decoding.back();
    EXPECT_EQ(decoding.tokens(), std::vector<int64_t>(tokens.begin(), tokens.begin() + 2));
    decoding.step();
    decoding.step();
    EXPECT_EQ(decoding.tokens(), tokens);
    EXPECT_EQ(decoding.logProb(), logProb);
    for (size_t i = 0; i < rows.size(); ++i)
        EXPECT_EQ(decoding.crossAttention()[i].storage(), rows[i].storage()) << i;
    decoding.reset();
    EXPECT_TRUE(decoding.tokens().empty());
    EXPECT_EQ(decoding.logProb(), 0.0);
    decoding.back(); // nothing to drop: no effect
    decoding.step();
    EXPECT_EQ(decoding.tokens().front(), tokens.front());
    EXPECT_THROW(StepwiseTranslation(nullptr, 0, 1, 5), Error);
}

TEST(AlignStepwise, MarianIncrementalRowsEqualTheFullForward)
{
    const test::Fixture fx("marian");
    const auto model = std::dynamic_pointer_cast<const EncoderDecoderModel>(loadModel(fx.dir));
    ASSERT_TRUE(model);
    const auto enc = model->encode(EncoderInput { fx.ids("input_ids.npy"), {} }, {});
    const std::vector<int64_t> golden = fx.ids("greedy_ids.npy");
    const int64_t steps = static_cast<int64_t>(golden.size());
    // eos -1: HF's golden greedy run does not stop at EOS either.
    StepwiseTranslation decoding(makeBeamDecoder(model, enc), model->decoderStartToken(), -1, steps);
    while (!decoding.finished())
        decoding.step();
    EXPECT_EQ(decoding.tokens(), golden);
    // One decoder forward over the start token and every chosen token but the last, with a fresh cache.
    std::vector<int64_t> fed { model->decoderStartToken() };
    fed.insert(fed.end(), golden.begin(), golden.end() - 1);
    KvCache cache = model->newDecoderCache();
    const Seq2SeqStepResult full = model->decode(*enc, cache, fed, {});
    const int64_t H = model->decoderHeads(), S = enc->length();
    ASSERT_EQ(static_cast<int64_t>(full.crossAttention.size()), model->decoderLayers());
    // A transformer's steps keep their queries, not their probabilities: the rows are derived from them.
    EXPECT_TRUE(decoding.crossAttention().empty());
    ASSERT_EQ(static_cast<int64_t>(decoding.crossQueries().size()), steps);
    ASSERT_NE(decoding.crossKeys(), nullptr);
    const auto derived = crossAttentionSource(*decoding.crossKeys(), decoding.crossQueries());
    ASSERT_EQ(derived->numQueries(), steps);
    ASSERT_EQ(derived->numKeys(), S);
    for (int64_t l = 0; l < model->decoderLayers(); ++l)
        for (int64_t h = 0; h < H; ++h) {
            const auto rows = derived->rows(l, h, 0, steps);
            for (int64_t t = 0; t < steps; ++t)
                for (int64_t s = 0; s < S; ++s)
                    EXPECT_NEAR(rows->data()[t * S + s],
                        full.crossAttention[static_cast<size_t>(l)].data()[(h * steps + t) * S + s], 1e-5)
                        << "step " << t << " layer " << l << " head " << h << " key " << s;
        }
}

// Hand-made: source "a b c d", target "w x y z". Forward (argmax per target word) {0-0 1-1 1-2 3-3}; the reverse
// model's own links (its source = our target) "0-0 2-2 3-1 3-3" are (source, target) {0-0 1-3 2-2 3-3} transposed.
TEST(AlignSymmetrize, TwoDirectionsHandComputed)
{
    const Links forward { { 0, 0 }, { 1, 1 }, { 1, 2 }, { 3, 3 } };
    const Links reverse = transposeLinks(parsePharaohLine("0-0 2-2 3-1 3-3", "reverse").sure);
    EXPECT_EQ(reverse, (Links { { 0, 0 }, { 2, 2 }, { 1, 3 }, { 3, 3 } }));
    // Intersection: {0-0, 3-3}.
    EXPECT_EQ(symmetrize(forward, reverse, parseSymmetrization("intersection")), (Links { { 0, 0 }, { 3, 3 } }));
    // grow-diag, sweeping (source, target) positions as Moses / NLTK do: from 0-0, 1-1 (diagonal; source 1 and
    // target 1 unaligned) is added; from 1-1, 1-2 (target 2 unaligned) and 2-2 (diagonal; source 2 unaligned). 1-3
    // touches 1-2 and 2-2, but source 1 and target 3 are both aligned by then: not added.
    EXPECT_EQ(symmetrize(forward, reverse, parseSymmetrization("grow-diag")),
        (Links { { 0, 0 }, { 1, 1 }, { 1, 2 }, { 2, 2 }, { 3, 3 } }));
    // grow-diag-final adds nothing more: every word is aligned.
    EXPECT_EQ(symmetrize(forward, reverse, Symmetrization::GrowDiagFinal),
        symmetrize(forward, reverse, Symmetrization::GrowDiag));
    // A forward-only link next to no aligned point (6-6) joins only in the final step, its words being unaligned.
    Links farForward = forward;
    farForward.insert({ 6, 6 });
    EXPECT_EQ(symmetrize(farForward, reverse, Symmetrization::GrowDiag).count({ 6, 6 }), 0u);
    EXPECT_EQ(symmetrize(farForward, reverse, Symmetrization::GrowDiagFinal).count({ 6, 6 }), 1u);
    EXPECT_THROW(parseSymmetrization("union"), Error);
    EXPECT_NO_THROW(expectLinksWithin(reverse, 4, 4, "reverse"));
    EXPECT_THROW(expectLinksWithin(reverse, 4, 3, "reverse"), Error);
}

} // namespace
} // namespace attn
