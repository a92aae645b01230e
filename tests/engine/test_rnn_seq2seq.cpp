// SPDX-License-Identifier: MIT
// RNN seq2seq: the PyTorch tutorial's GRU + AttnDecoderRNN toy reproduces its 11 reference translations and their
// attention; the general layout (LSTM, bidirectional, Luong / Bahdanau) loads and attends as documented.
#include "attention/attention.h"
#include "core/error.h"
#include "model/family_registry.h"
#include "model/rnn_seq2seq.h"
#include "session/sampler.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <random>

namespace attn {
namespace {

TEST(RnnSeq2Seq, TutorialNormalisation)
{
    EXPECT_EQ(normalizeTutorialText("Man weiß sehr wenig über Sie."), "man wei sehr wenig uber sie .");
    EXPECT_EQ(normalizeTutorialText("  Tut mir leid, Techniker!"), "tut mir leid techniker !");
}

// Reference: reference_translations_with_attention.json (attention rounded to 6 decimals). Tolerance 2e-6 covers
// that rounding (5e-7) plus fp32 noise over 10 GRU steps.
TEST(RnnSeq2Seq, ToyReproducesAllReferenceTranslationsAndAttention)
{
    const auto model = loadRnnSeq2Seq(test::sharedPath("models/seq2seq-attn-de-en-toy"));
    std::ifstream in(test::sharedPath("models/seq2seq-attn-de-en-toy/reference_translations_with_attention.json"));
    const auto refs = nlohmann::json::parse(in);
    ASSERT_EQ(refs.size(), 11u);
    int exact = 0;
    double worst = 0.0;
    for (const auto& ref : refs) {
        const RnnEncoding enc = model->encode(model->sourceIds(ref["src"].get<std::string>()));
        RnnDecoderState state = model->initialState(enc);
        std::vector<int64_t> out;
        std::vector<std::vector<float>> rows;
        int64_t token = model->startToken();
        for (int64_t s = 0; s < model->maxLength(); ++s) {
            const RnnStep step = model->step(enc, state, token);
            token = argmax(step.logits.data(), static_cast<int64_t>(step.logits.size()));
            out.push_back(token);
            rows.push_back(step.attention);
            if (token == model->eosToken()) break;
        }
        const std::string hyp = model->targetText(out);
        EXPECT_EQ(hyp, ref["hyp"].get<std::string>());
        exact += hyp == ref["hyp"].get<std::string>();
        const auto& att = ref["attention"];
        ASSERT_EQ(att.size(), rows.size()) << ref["src"];
        for (size_t t = 0; t < rows.size(); ++t) {
            ASSERT_EQ(att[t].size(), rows[t].size());
            for (size_t k = 0; k < rows[t].size(); ++k)
                worst = std::max(worst, std::fabs(static_cast<double>(rows[t][k]) - att[t][k].get<double>()));
        }
    }
    EXPECT_EQ(exact, 11);
    EXPECT_LE(worst, 2e-6);
}

TEST(RnnSeq2Seq, ToyRejectsUnknownWordsAndLongSources)
{
    const auto model = loadRnnSeq2Seq(test::sharedPath("models/seq2seq-attn-de-en-toy"));
    EXPECT_THROW(model->sourceIds("ich bin ein berliner"), Error);
    EXPECT_THROW(model->encode(std::vector<int64_t>(11, 2)), Error); // 11 > the 10 attention positions
    EXPECT_THROW(model->encode({ 57 }), Error); // source vocab has 57 words
}

/// A safetensors file of f32 tensors (what the documented layout stores).
void writeSafetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors)
{
    nlohmann::json header;
    size_t offset = 0;
    for (const auto& [name, t] : tensors) {
        header[name] = { { "dtype", "F32" }, { "shape", t.shape() },
            { "data_offsets", { offset, offset + sizeof(float) * t.numel() } } };
        offset += sizeof(float) * t.numel();
    }
    const std::string h = header.dump();
    std::ofstream out(path, std::ios::binary);
    const uint64_t n = h.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out.write(h.data(), static_cast<std::streamsize>(n));
    for (const auto& [name, t] : tensors)
        out.write(reinterpret_cast<const char*>(t.data()), static_cast<std::streamsize>(sizeof(float) * t.numel()));
}

Tensor randomTensor(Shape shape, std::mt19937& rng)
{
    Tensor t(std::move(shape));
    std::normal_distribution<float> d(0.0f, 0.5f);
    for (float& x : t.storage())
        x = d(rng);
    return t;
}

// A bidirectional LSTM with Luong dot attention and input feeding: the attention row of each step must be
// softmax(h_t . keys) computed here from the state and keys the model exposes.
TEST(RnnSeq2Seq, GeneralLayoutLuongDotAttendsWithTheNewState)
{
    const std::string dir = test::makeTempDir("rnn-luong");
    const int64_t Vs = 5, Vt = 6, E = 4, H = 3, De = 2 * H;
    std::mt19937 rng(7);
    std::vector<std::pair<std::string, Tensor>> t;
    t.emplace_back("encoder.embedding.weight", randomTensor({ Vs, E }, rng));
    for (const char* suffix : { "", "_reverse" }) {
        t.emplace_back(std::string("encoder.rnn.weight_ih_l0") + suffix, randomTensor({ 4 * H, E }, rng));
        t.emplace_back(std::string("encoder.rnn.weight_hh_l0") + suffix, randomTensor({ 4 * H, H }, rng));
        t.emplace_back(std::string("encoder.rnn.bias_ih_l0") + suffix, randomTensor({ 4 * H }, rng));
        t.emplace_back(std::string("encoder.rnn.bias_hh_l0") + suffix, randomTensor({ 4 * H }, rng));
    }
    t.emplace_back("decoder.embedding.weight", randomTensor({ Vt, E }, rng));
    t.emplace_back("decoder.rnn.weight_ih_l0", randomTensor({ 4 * De, E + De }, rng));
    t.emplace_back("decoder.rnn.weight_hh_l0", randomTensor({ 4 * De, De }, rng));
    t.emplace_back("decoder.rnn.bias_ih_l0", randomTensor({ 4 * De }, rng));
    t.emplace_back("decoder.rnn.bias_hh_l0", randomTensor({ 4 * De }, rng));
    t.emplace_back("decoder.combine.weight", randomTensor({ De, 2 * De }, rng));
    t.emplace_back("decoder.combine.bias", randomTensor({ De }, rng));
    t.emplace_back("decoder.out.weight", randomTensor({ Vt, De }, rng));
    t.emplace_back("decoder.out.bias", randomTensor({ Vt }, rng));
    writeSafetensors(dir + "/model.safetensors", t);
    nlohmann::json cfg = { { "model_type", "rnn_seq2seq" }, { "cell", "lstm" }, { "bidirectional", true },
        { "embedding_size", E }, { "hidden_size", H }, { "attention", "dot" }, { "input_feeding", true },
        { "source_vocab", { "SOS", "EOS", "a", "b", "c" } }, { "target_vocab", { "SOS", "EOS", "x", "y", "z", "w" } } };
    std::ofstream(dir + "/config.json") << cfg.dump();
    ASSERT_FALSE(hasSelfAttention(probeModel(dir).config));
    const auto model = loadRnnSeq2Seq(dir);
    const RnnEncoding enc = model->encode({ 2, 3, 4, 1 });
    ASSERT_EQ(enc.keys.shape(), (Shape { 4, De }));
    RnnDecoderState state = model->initialState(enc);
    int64_t token = model->startToken();
    for (int s = 0; s < 3; ++s) {
        const RnnStep step = model->step(enc, state, token);
        std::vector<float> expected(4);
        for (int64_t k = 0; k < 4; ++k)
            for (int64_t d = 0; d < De; ++d)
                expected[k] += state.h[d] * enc.keys.data()[k * De + d];
        softmaxRowsInPlace(expected.data(), 1, 4);
        ASSERT_EQ(step.attention.size(), 4u);
        for (int64_t k = 0; k < 4; ++k)
            EXPECT_NEAR(step.attention[k], expected[k], 1e-6);
        token = argmax(step.logits.data(), Vt);
    }
    // A missing tensor is named.
    cfg["attention"] = "general";
    std::ofstream(dir + "/config.json") << cfg.dump();
    try {
        loadRnnSeq2Seq(dir);
        ADD_FAILURE() << "general attention without decoder.attention.weight loaded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("decoder.attention.weight"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace attn
