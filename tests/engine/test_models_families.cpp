// SPDX-License-Identifier: MIT
// The decoder families added to the Llama forward (qwen2, mistral, RoPE scaling, olmo, starcoder2, gpt_neox, phi,
// phi3, gemma, gemma2, opt, mixtral) beyond test_models_hf_decoders.cpp (full forward and cached greedy against the
// goldens): greedy without a cache, step-by-step decoding equal to the full forward over the same ids, Mixtral's
// router logits, and the tokenizers of the folders that ship one.
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "model_test_util.h"
#include "session/sampler.h"
#include "session/session.h"
#include "tokenizer/tokenizer_loader.h"

#include <gtest/gtest.h>

#include <fstream>

namespace attn {
namespace {

using test::Fixture;
using test::maxAbsDiff;

class FamilyGolden : public ::testing::TestWithParam<const char*> { };

/// Without a cache every step is one full forward over the sequence so far: the goldens' greedy ids and step logits
/// for every family, dynamic NTK included (its base follows the length).
TEST_P(FamilyGolden, GreedyWithoutCacheMatchesHf)
{
    const Fixture fx(GetParam());
    const auto model = loadModel(fx.dir);
    const std::vector<int64_t> expected = fx.ids("greedy_ids.npy");
    const Tensor stepLogits = fx.tensor("greedy_step_logits.npy");
    const int64_t V = model->config().vocabSize;
    std::vector<int64_t> ids = fx.ids("input_ids.npy"), got;
    double worst = 0;
    for (size_t s = 0; s < expected.size(); ++s) {
        const auto r = Session(model).prefill(ids);
        const Tensor last = test::rowsOf(r->logits, r->logits.dim(0) - 1, r->logits.dim(0));
        worst = std::max(
            worst, maxAbsDiff(last, test::rowsOf(stepLogits, static_cast<int64_t>(s), static_cast<int64_t>(s) + 1)));
        got.push_back(argmax(last.data(), V));
        ids.push_back(got.back());
    }
    EXPECT_EQ(got, expected);
    EXPECT_LE(worst, fx.tolerance("logits"));
}

/// The KV cache path is the full forward: feeding the prompt and then the greedy ids one at a time gives every row of
/// the full forward's logits and attention. Dynamic NTK only while the sequence fits max_position_embeddings (its base
/// is unchanged there; past it the cached keys keep the rotation of their step, as in HF's cache).
TEST_P(FamilyGolden, StepByStepEqualsFullForward)
{
    const Fixture fx(GetParam());
    const auto model = loadModel(fx.dir);
    std::vector<int64_t> ids = fx.ids("input_ids.npy");
    const std::vector<int64_t> greedy = fx.ids("greedy_ids.npy");
    ids.insert(ids.end(), greedy.begin(), greedy.end());
    const int64_t limit = model->config().ropeScaling.type == RopeScaling::Type::Dynamic
        ? model->config().maxPositions
        : static_cast<int64_t>(ids.size());
    ids.resize(static_cast<size_t>(limit));
    const auto full = Session(model).prefill(ids);
    Session session(model);
    const int64_t prompt = limit / 2;
    auto r = session.prefill(std::vector<int64_t>(ids.begin(), ids.begin() + prompt));
    double logits = maxAbsDiff(r->logits, test::rowsOf(full->logits, 0, prompt)), attention = 0;
    for (int64_t i = prompt; i < limit; ++i) {
        r = session.step(ids[static_cast<size_t>(i)]);
        logits = std::max(logits, maxAbsDiff(r->logits, test::rowsOf(full->logits, i, i + 1)));
        for (size_t l = 0; l < r->attention.size(); ++l) {
            const Tensor& step = r->attention[l]; // [heads, 1, i + 1]
            const Tensor& all = full->attention[l]; // [heads, limit, limit]
            for (int64_t h = 0; h < step.dim(0); ++h)
                for (int64_t j = 0; j <= i; ++j)
                    attention = std::max(attention,
                        std::fabs(double(step.data()[h * (i + 1) + j]) - all.data()[(h * limit + i) * limit + j]));
        }
    }
    // Both paths run the same float32 ops over different row counts (GEMM blocking differs): rounding-level only.
    EXPECT_LE(logits, 1e-4);
    EXPECT_LE(attention, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FamilyGolden,
    ::testing::Values("qwen2", "mistral", "llama-rope-linear", "llama-rope-dynamic", "llama3-rope", "olmo",
        "starcoder2", "gpt_neox", "phi", "phi3", "gemma", "gemma2", "opt", "mixtral"),
    [](const auto& info) {
        std::string n = info.param;
        for (char& c : n)
            if (c == '-') c = '_';
        return n;
    });

/// The tokenizer files these folders ship (byte-level BPE for gpt_neox, phi and opt with its BOS; SentencePiece
/// with byte fallback and BOS for gemma): every case of tokenizer_cases.json gives HF's ids and decodes back.
class FamilyTokenizer : public ::testing::TestWithParam<const char*> { };

TEST_P(FamilyTokenizer, CasesGiveHfIds)
{
    const Fixture fx(GetParam());
    const auto tok = loadTokenizer(probeModel(fx.dir));
    std::ifstream in(fx.dir + "/tokenizer_cases.json");
    const auto cases = nlohmann::json::parse(in);
    ASSERT_GE(cases.size(), 10u);
    for (const auto& c : cases) {
        const std::string text = c["text"].get<std::string>();
        std::vector<int64_t> ids;
        for (const Token& t : tok->encode(text))
            ids.push_back(t.id);
        EXPECT_EQ(ids, c["ids"].get<std::vector<int64_t>>()) << text;
        EXPECT_EQ(tok->decode(ids, true), c["decoded"].get<std::string>()) << text; // HF skips special tokens
    }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, FamilyTokenizer, ::testing::Values("gpt_neox", "phi", "opt", "gemma"));

TEST(Mixtral, RouterLogitsMatchHf)
{
    const Fixture fx("mixtral");
    const auto model = loadModel(fx.dir);
    const auto r = Session(model).prefill(fx.ids("input_ids.npy"));
    ASSERT_EQ(r->routerLogits.size(), 2u);
    double worst = 0;
    for (int64_t l = 0; l < 2; ++l)
        worst = std::max(worst,
            maxAbsDiff(
                r->routerLogits[static_cast<size_t>(l)], fx.tensor("router_logits.L0" + std::to_string(l) + ".npy")));
    std::printf("mixtral: router logits max abs error %.2e\n", worst);
    EXPECT_LE(worst, fx.tolerance("router_logits"));
}

TEST(Mixtral, DenseModelsReportNoRouterLogits)
{
    const auto r = Session(loadModel(Fixture("qwen2").dir)).prefill({ 1, 2, 3 });
    EXPECT_TRUE(r->routerLogits.empty());
}

} // namespace
} // namespace attn
