// SPDX-License-Identifier: MIT
// Llama-family variants on tiny synthetic HF folders written here: Mistral's sliding window, Qwen2's q/k/v biases,
// tied and untied heads, and the loader's refusals (missing, mis-shaped and unexpected tensors).
#include "core/error.h"
#include "model/model_loader.h"
#include "model_test_util.h"
#include "session/session.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <random>

namespace attn {
namespace {

using Tensors = std::map<std::string, Tensor>;

void writeSafetensors(const std::string& path, const Tensors& tensors)
{
    nlohmann::json header = nlohmann::json::object();
    uint64_t offset = 0;
    for (const auto& [name, t] : tensors) {
        const uint64_t bytes = static_cast<uint64_t>(t.numel()) * 4;
        header[name] = { { "dtype", "F32" }, { "shape", t.shape() }, { "data_offsets", { offset, offset + bytes } } };
        offset += bytes;
    }
    const std::string h = header.dump();
    const uint64_t len = h.size();
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&len), 8);
    out.write(h.data(), static_cast<std::streamsize>(h.size()));
    for (const auto& [name, t] : tensors)
        out.write(reinterpret_cast<const char*>(t.data()), t.numel() * 4);
}

Tensor randomTensor(const Shape& shape, std::mt19937& rng, float scale = 0.5f)
{
    Tensor t(shape);
    std::normal_distribution<float> d(0.0f, scale);
    for (int64_t i = 0; i < t.numel(); ++i)
        t.data()[i] = d(rng);
    return t;
}

/// A 1-layer model: hidden 8, 2 query heads sharing 1 KV head of dim 4, vocab 10.
struct TinyLlama {
    nlohmann::json config = { { "model_type", "llama" }, { "hidden_size", 8 }, { "num_hidden_layers", 1 },
        { "num_attention_heads", 2 }, { "num_key_value_heads", 1 }, { "intermediate_size", 16 }, { "vocab_size", 10 },
        { "max_position_embeddings", 32 }, { "rms_norm_eps", 1e-6 }, { "tie_word_embeddings", false } };
    Tensors tensors;

    explicit TinyLlama(unsigned seed)
    {
        std::mt19937 rng(seed);
        const std::string p = "model.layers.0.";
        tensors["model.embed_tokens.weight"] = randomTensor({ 10, 8 }, rng);
        tensors[p + "input_layernorm.weight"] = randomTensor({ 8 }, rng);
        tensors[p + "self_attn.q_proj.weight"] = randomTensor({ 8, 8 }, rng);
        tensors[p + "self_attn.k_proj.weight"] = randomTensor({ 4, 8 }, rng);
        tensors[p + "self_attn.v_proj.weight"] = randomTensor({ 4, 8 }, rng);
        tensors[p + "self_attn.o_proj.weight"] = randomTensor({ 8, 8 }, rng);
        tensors[p + "post_attention_layernorm.weight"] = randomTensor({ 8 }, rng);
        tensors[p + "mlp.gate_proj.weight"] = randomTensor({ 16, 8 }, rng);
        tensors[p + "mlp.up_proj.weight"] = randomTensor({ 16, 8 }, rng);
        tensors[p + "mlp.down_proj.weight"] = randomTensor({ 8, 16 }, rng);
        tensors["model.norm.weight"] = randomTensor({ 8 }, rng);
        tensors["lm_head.weight"] = randomTensor({ 10, 8 }, rng);
    }
    std::string write(const std::string& tag) const
    {
        const std::string dir = test::makeTempDir(tag);
        std::ofstream(dir + "/config.json") << config.dump();
        writeSafetensors(dir + "/model.safetensors", tensors);
        return dir;
    }
};

std::string loadError(const std::string& dir)
{
    try {
        loadModel(dir);
    } catch (const Error& e) {
        return e.what();
    }
    return "<loaded>";
}

const std::vector<int64_t> kIds { 1, 4, 2, 8, 5, 7, 3, 9, 0, 6 };

TEST(LlamaVariants, MistralSlidingWindowHidesOldKeysAndStepsAgree)
{
    TinyLlama m(1);
    m.config["model_type"] = "mistral";
    m.config["sliding_window"] = 3;
    const auto model = loadModel(m.write("mistral"));
    EXPECT_EQ(model->config().slidingWindow, 3);
    Session full(model);
    const auto r = full.prefill(kIds);
    const Tensor& a = r->attention[0];
    for (int64_t h = 0; h < 2; ++h)
        for (int64_t q = 0; q < 10; ++q) {
            double sum = 0;
            for (int64_t k = 0; k < 10; ++k) {
                const bool visible = k <= q && k > q - 3;
                if (!visible) {
                    EXPECT_EQ(a.at({ h, q, k }), 0.0f) << h << " " << q << " " << k;
                } else {
                    EXPECT_GT(a.at({ h, q, k }), 0.0f);
                }
                sum += a.at({ h, q, k });
            }
            EXPECT_NEAR(sum, 1.0, 1e-5);
        }
    Session stepped(model);
    for (size_t i = 0; i < kIds.size(); ++i) {
        const auto s = stepped.step(kIds[i]);
        EXPECT_LE(
            test::maxAbsDiff(s->logits, test::rowsOf(r->logits, static_cast<int64_t>(i), static_cast<int64_t>(i) + 1)),
            1e-5);
    }
    // The derived rows honour the window too.
    EXPECT_EQ(stepped.attentionRows(0, 1, 9, 10).at({ 0, 6 }), 0.0f);
}

TEST(LlamaVariants, Qwen2BiasesAreLoadedAndUsed)
{
    TinyLlama base(2);
    const auto plain = loadModel(base.write("llama-plain"));
    TinyLlama q = base;
    q.config["model_type"] = "qwen2";
    const std::string p = "model.layers.0.self_attn.";
    q.tensors[p + "q_proj.bias"] = Tensor({ 8 });
    q.tensors[p + "k_proj.bias"] = Tensor({ 4 });
    q.tensors[p + "v_proj.bias"] = Tensor({ 4 });
    // Zero biases: exactly the plain Llama.
    const auto zero = loadModel(q.write("qwen2-zero"));
    EXPECT_EQ(test::maxAbsDiff(Session(zero).prefill(kIds)->logits, Session(plain).prefill(kIds)->logits), 0.0);
    // A q bias changes the scores (a k bias alone would not: softmax is shift invariant per row).
    std::mt19937 rng(3);
    q.tensors[p + "q_proj.bias"] = randomTensor({ 8 }, rng, 1.0f);
    const auto biased = loadModel(q.write("qwen2-bias"));
    EXPECT_GT(test::maxAbsDiff(Session(biased).prefill(kIds)->attention[0], Session(plain).prefill(kIds)->attention[0]),
        1e-3);
    // A v bias shifts every head output by the same vector.
    q.tensors[p + "q_proj.bias"] = Tensor({ 8 });
    q.tensors[p + "v_proj.bias"] = randomTensor({ 4 }, rng, 1.0f);
    const auto vBiased = loadModel(q.write("qwen2-vbias"));
    EXPECT_GT(test::maxAbsDiff(Session(vBiased).prefill(kIds)->logits, Session(plain).prefill(kIds)->logits), 1e-3);
    q.tensors.erase(p + "k_proj.bias");
    EXPECT_NE(loadError(q.write("qwen2-missing")).find("k_proj.bias"), std::string::npos);
}

TEST(LlamaVariants, TiedHeadUsesTheEmbedding)
{
    TinyLlama m(4);
    m.config["tie_word_embeddings"] = true;
    m.tensors.erase("lm_head.weight");
    const auto tied = loadModel(m.write("tied"));
    TinyLlama u = m;
    u.config["tie_word_embeddings"] = false;
    u.tensors["lm_head.weight"] = m.tensors["model.embed_tokens.weight"];
    const auto untied = loadModel(u.write("untied-copy"));
    EXPECT_EQ(test::maxAbsDiff(Session(tied).prefill(kIds)->logits, Session(untied).prefill(kIds)->logits), 0.0);
    u.tensors.erase("lm_head.weight");
    EXPECT_NE(loadError(u.write("untied-missing")).find("lm_head.weight"), std::string::npos);
}

TEST(LlamaVariants, LoaderRefusesWrongShapesUnknownTensorsAndUnknownRopeScaling)
{
    TinyLlama m(5);
    m.tensors["model.layers.0.self_attn.k_proj.weight"] = Tensor({ 8, 8 }); // GQA says [4, 8]
    const std::string shape = loadError(m.write("bad-shape"));
    EXPECT_NE(shape.find("k_proj.weight"), std::string::npos) << shape;

    TinyLlama extra(5);
    extra.tensors["model.layers.0.mlp.gate_proj.bias"] = Tensor({ 16 });
    const std::string unused = loadError(extra.write("extra"));
    EXPECT_NE(unused.find("gate_proj.bias"), std::string::npos) << unused;

    TinyLlama scaled(5); // linear, dynamic, llama3, longrope and yarn are supported; Qwen2-VL's mrope is not
    scaled.config["rope_scaling"] = { { "type", "mrope" }, { "mrope_section", { 2, 3, 3 } } };
    const std::string mrope = loadError(scaled.write("rope-scaling"));
    EXPECT_NE(mrope.find("rope_scaling type \"mrope\" is not supported"), std::string::npos) << mrope;
}

TEST(LlamaVariants, RopeThetaIsHonoured)
{
    TinyLlama a(6);
    TinyLlama b = a;
    b.config["rope_theta"] = 500000.0;
    const auto ra = Session(loadModel(a.write("theta-default"))).prefill(kIds);
    const auto rb = Session(loadModel(b.write("theta-big"))).prefill(kIds);
    // Position 0 is not rotated at all, later positions are rotated differently.
    EXPECT_EQ(test::maxAbsDiff(test::rowsOf(ra->logits, 0, 1), test::rowsOf(rb->logits, 0, 1)), 0.0);
    EXPECT_GT(test::maxAbsDiff(ra->logits, rb->logits), 1e-4);
}

} // namespace
} // namespace attn
