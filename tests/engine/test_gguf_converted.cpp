// SPDX-License-Identifier: MIT
// GGUF files written here from the hf-tiny qwen2 and gpt2 fixtures with llama.cpp's names and keys
// (convert_hf_to_gguf.py Qwen2Model: no Q/K permutation, q/k/v biases; GPT2Model: Conv1D weights transposed to
// [out, in], output.weight a copy of token_embd): the GGUF path gives HF's goldens.
#include "io/safetensors.h"
#include "model/kv_cache.h"
#include "model/layers.h"
#include "model/model_loader.h"
#include "model_test_util.h"
#include "support/gguf_writer.h"

#include <cmath>
#include <map>
#include <regex>

namespace attn {
namespace {

using test::GgufWriter;

using NameRules = std::vector<std::pair<std::regex, std::string>>;

/// HF name -> llama.cpp name by the first matching rule (llama.cpp gguf-py tensor_mapping.py).
std::string ggufName(const std::string& hf, const NameRules& rules)
{
    for (const auto& [re, to] : rules)
        if (std::regex_match(hf, re)) return std::regex_replace(hf, re, to);
    ADD_FAILURE() << "no GGUF name for " << hf;
    return hf;
}

const NameRules& qwen2Names()
{
    static const NameRules rules {
        { std::regex(R"(model\.embed_tokens\.weight)"), "token_embd.weight" },
        { std::regex(R"(model\.norm\.weight)"), "output_norm.weight" },
        { std::regex(R"(lm_head\.weight)"), "output.weight" },
        { std::regex(R"(model\.layers\.(\d+)\.input_layernorm\.weight)"), "blk.$1.attn_norm.weight" },
        { std::regex(R"(model\.layers\.(\d+)\.post_attention_layernorm\.weight)"), "blk.$1.ffn_norm.weight" },
        { std::regex(R"(model\.layers\.(\d+)\.self_attn\.([qkv])_proj\.(weight|bias))"), "blk.$1.attn_$2.$3" },
        { std::regex(R"(model\.layers\.(\d+)\.self_attn\.o_proj\.weight)"), "blk.$1.attn_output.weight" },
        { std::regex(R"(model\.layers\.(\d+)\.mlp\.(gate|up|down)_proj\.weight)"), "blk.$1.ffn_$2.weight" },
    };
    return rules;
}

const NameRules& gpt2Names()
{
    static const NameRules rules {
        { std::regex(R"((?:transformer\.)?wte\.weight)"), "token_embd.weight" },
        { std::regex(R"((?:transformer\.)?wpe\.weight)"), "position_embd.weight" },
        { std::regex(R"((?:transformer\.)?ln_f\.(weight|bias))"), "output_norm.$1" },
        { std::regex(R"((?:transformer\.)?h\.(\d+)\.ln_1\.(weight|bias))"), "blk.$1.attn_norm.$2" },
        { std::regex(R"((?:transformer\.)?h\.(\d+)\.ln_2\.(weight|bias))"), "blk.$1.ffn_norm.$2" },
        { std::regex(R"((?:transformer\.)?h\.(\d+)\.attn\.c_attn\.(weight|bias))"), "blk.$1.attn_qkv.$2" },
        { std::regex(R"((?:transformer\.)?h\.(\d+)\.attn\.c_proj\.(weight|bias))"), "blk.$1.attn_output.$2" },
        { std::regex(R"((?:transformer\.)?h\.(\d+)\.mlp\.c_fc\.(weight|bias))"), "blk.$1.ffn_up.$2" },
        { std::regex(R"((?:transformer\.)?h\.(\d+)\.mlp\.c_proj\.(weight|bias))"), "blk.$1.ffn_down.$2" },
    };
    return rules;
}

/// Runs the GGUF at `path` on `fx`'s prompt and checks every attention and the logits against its goldens.
void expectGoldens(const std::string& path, const test::Fixture& fx, int64_t layers)
{
    const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(path));
    ASSERT_TRUE(model);
    KvCache cache = model->newCache();
    const StepResult r = model->forward(cache, fx.ids("input_ids.npy"), {});
    ASSERT_EQ(static_cast<int64_t>(r.attention.size()), layers);
    for (int64_t l = 0; l < layers; ++l)
        EXPECT_LE(test::maxAbsDiff(r.attention[static_cast<size_t>(l)], fx.tensor(fx.attentionFile(l))),
            fx.tolerance("attentions"));
    EXPECT_LE(test::maxAbsDiff(r.logits, fx.tensor("logits.npy")), fx.tolerance("logits"));
}

TEST(GgufConverted, Qwen2MatchesItsHfGoldens)
{
    const test::Fixture fx("qwen2");
    const auto store = SafetensorsStore::open(fx.dir + "/model.safetensors");
    GgufWriter w;
    w.string("general.architecture", "qwen2");
    w.u32("qwen2.block_count", 2);
    w.u32("qwen2.context_length", 128);
    w.u32("qwen2.embedding_length", 32);
    w.u32("qwen2.feed_forward_length", 64);
    w.u32("qwen2.attention.head_count", 4);
    w.u32("qwen2.attention.head_count_kv", 2);
    w.f32("qwen2.rope.freq_base", 10000.0f);
    w.f32("qwen2.attention.layer_norm_rms_epsilon", 1e-6f);
    for (const std::string& name : store->names())
        w.tensor(ggufName(name, qwen2Names()), store->load(name));
    const std::string path = test::makeTempDir("qwen2-gguf") + "/qwen2.gguf";
    w.save(path);

    EXPECT_TRUE(probeModel(path).config.attentionBias);
    expectGoldens(path, fx, 2);
}

TEST(GgufConverted, Gpt2MatchesItsHfGoldens)
{
    const test::Fixture fx("gpt2");
    const auto store = SafetensorsStore::open(fx.dir + "/model.safetensors");
    GgufWriter w;
    w.string("general.architecture", "gpt2");
    w.u32("gpt2.block_count", 2);
    w.u32("gpt2.context_length", 64);
    w.u32("gpt2.embedding_length", 32);
    w.u32("gpt2.feed_forward_length", 128);
    w.u32("gpt2.attention.head_count", 4);
    w.f32("gpt2.attention.layer_norm_epsilon", 1e-5f);
    const std::regex maskBuffer(R"(.*\.attn\.(masked_)?bias)");
    const std::regex conv1d(R"(.*(c_attn|c_proj|c_fc)\.weight)");
    for (const std::string& name : store->names()) {
        if (std::regex_match(name, maskBuffer) || name == "lm_head.weight")
            continue; // causal-mask buffers; the head is written as token_embd's copy below
        const Tensor t = store->load(name);
        const std::string gguf = ggufName(name, gpt2Names());
        w.tensor(gguf, std::regex_match(name, conv1d) ? transposed(t) : t);
        if (gguf == "token_embd.weight") w.tensor("output.weight", t);
    }
    const std::string path = test::makeTempDir("gpt2-gguf") + "/gpt2.gguf";
    w.save(path);
    EXPECT_EQ(probeModel(path).config.activation, "gelu_new");
    expectGoldens(path, fx, 2);
}

/// The description of a gemma2 GGUF of `layers` layers, width `width`, `heads` heads of `headDim`.
ModelConfig gemma2Config(uint32_t layers, uint32_t width, uint32_t heads, uint32_t headDim)
{
    GgufWriter w;
    w.string("general.architecture", "gemma2");
    w.u32("gemma2.block_count", layers);
    w.u32("gemma2.embedding_length", width);
    w.u32("gemma2.attention.head_count", heads);
    w.u32("gemma2.attention.head_count_kv", heads / 2);
    w.u32("gemma2.attention.key_length", headDim);
    w.u32("gemma2.feed_forward_length", 4 * width);
    w.u32("gemma2.attention.sliding_window", 4096);
    w.f32("gemma2.attn_logit_softcapping", 50.0f);
    w.f32("gemma2.final_logit_softcapping", 30.0f);
    const std::string path = test::makeTempDir("gemma2-gguf") + "/gemma2-" + std::to_string(layers) + ".gguf";
    w.save(path);
    return probeModel(path).config;
}

TEST(GgufConverted, Gemma2TakesLlamaCppsQueryScaleCapsAndAlternatingWindows)
{
    // The released shapes: Gemma 2 2B (26 layers) and 9B (42) scale by head_dim, the 27B (46) by n_embd / n_head,
    // as their query_pre_attn_scalar says and llama.cpp rules, since GGUF stores no such key.
    const ModelConfig small = gemma2Config(26, 2304, 8, 256);
    EXPECT_EQ(small.queryPreAttnScalar, 256.0);
    EXPECT_NE(small.toJson().find("\"query_pre_attn_scalar\": 256.0"), std::string::npos) << small.toJson(); // info
    const ModelConfig large = gemma2Config(46, 4608, 32, 128);
    EXPECT_EQ(large.queryPreAttnScalar, 144.0);
    EXPECT_EQ(large.attnLogitSoftcap, 50.0);
    EXPECT_EQ(large.finalLogitSoftcap, 30.0);
    EXPECT_TRUE(large.scaleEmbedding);
    EXPECT_EQ(large.activation, "gelu_pytorch_tanh");
    EXPECT_EQ(large.windowOfLayer(0), 4096); // llama.cpp's set_swa_pattern(2): even layers slide
    EXPECT_EQ(large.windowOfLayer(1), 0);
}

/// The error loading a GGUF of `arch` with one tensor `tensor` [1, 32] and uint32 keys (named without the "ARCH."
/// prefix): 1 layer of width 32, 4 heads and a feed-forward of 64, each replaced by `keys` where they name it, and
/// the float32 keys `floats`.
std::string ggufRefusal(const std::string& arch, const std::map<std::string, uint32_t>& keys, const std::string& tensor,
    const std::map<std::string, float>& floats = {})
{
    std::map<std::string, uint32_t> all { { "block_count", 1 }, { "embedding_length", 32 },
        { "attention.head_count", 4 }, { "feed_forward_length", 64 } };
    for (const auto& [key, value] : keys)
        all[key] = value;
    GgufWriter w;
    w.string("general.architecture", arch);
    for (const auto& [key, value] : all)
        w.u32(arch + "." + key, value);
    for (const auto& [key, value] : floats)
        w.f32(arch + "." + key, value);
    w.tensor(tensor, Tensor({ 1, 32 }));
    const std::string path = test::makeTempDir("refused-gguf") + "/refused.gguf";
    w.save(path);
    try {
        (void)loadModel(path);
    } catch (const Error& e) {
        return e.what();
    }
    return "loaded";
}

void expectRefusal(const std::string& message, const std::string& part)
{
    EXPECT_NE(message.find(part), std::string::npos) << message;
    EXPECT_NE(message.find("refused.gguf"), std::string::npos) << message; // names the file
}

TEST(GgufConverted, UnsupportedExpertLayoutsAndHalfALongRopeAreRefusedByName)
{
    const std::map<std::string, uint32_t> moe { { "expert_count", 4 }, { "expert_used_count", 2 } };
    expectRefusal(ggufRefusal("llama", moe, "blk.0.ffn_gate.0.weight"), "experts stored one tensor each");
    auto shared = moe;
    shared.emplace("expert_shared_count", 1);
    expectRefusal(ggufRefusal("llama", shared, "blk.0.ffn_gate_inp_shexp.weight"), "shared experts");
    expectRefusal(ggufRefusal("llama", { { "expert_count", 4 }, { "expert_used_count", 5 } }, "token_embd.weight"),
        "expert_used_count = 5 must be in 1..llama.expert_count (4");
    // longrope itself runs (check_gguf_families.py holds it to a NumPy Phi-3); one list without the other is refused
    expectRefusal(ggufRefusal("llama", {}, "rope_factors_long.weight"), "longrope needs both");
}

TEST(GgufConverted, HeadCountsNoTensorBacksAreRefusedBeforeTheySizeAnything)
{
    // 8 heads of 2^28: llama's Q/K row orders (8 bytes a row) asked for 2 x 16 GiB before any tensor was read.
    expectRefusal(ggufRefusal("llama",
                      { { "attention.head_count", 8 }, { "attention.key_length", 1u << 28 }, { "vocab_size", 1 } },
                      "blk.0.attn_q.weight"),
        "tensor 'blk.0.attn_q.weight' has shape [1, 32], expected [2147483648, 32]");
    // 2^31 heads of 2^31: phi3's fused rows q + 2 kv (3 x 2^62) overflowed int64 (undefined behaviour).
    expectRefusal(
        ggufRefusal("phi3",
            { { "attention.head_count", 1u << 31 }, { "attention.key_length", 1u << 31 }, { "vocab_size", 1 } },
            "blk.0.attn_qkv.weight"),
        "the K/V row count is too large (2 x 4611686018427387904 does not fit in 64 bits)");
}

TEST(GgufConverted, ARotationWiderThanTheHeadIsRefusedWhenTheFileIsRead)
{
    // 4 heads of 8: a rotation of 64 dimensions (or of 0) loaded, and only the first forward refused it, unnamed.
    for (const uint32_t rotary : { 64u, 0u })
        expectRefusal(
            ggufRefusal("llama", { { "rope.dimension_count", rotary }, { "vocab_size", 1 } }, "token_embd.weight"),
            "llama.rope.dimension_count = " + std::to_string(rotary) + " is outside 2..8 (the head size)");
}

TEST(GgufConverted, ARopeBaseOrNormEpsilonThatCannotRunIsRefusedWhenTheFileIsRead)
{
    // A RoPE base of NaN or 0, or a NaN epsilon, loaded and made every logit NaN.
    for (const float base : { 0.0f, std::nanf("") })
        expectRefusal(
            ggufRefusal("llama", { { "vocab_size", 1 } }, "token_embd.weight", { { "rope.freq_base", base } }),
            "llama.rope.freq_base must be a finite number above 1, got " + std::to_string(base));
    expectRefusal(ggufRefusal("llama", { { "vocab_size", 1 } }, "token_embd.weight",
                      { { "attention.layer_norm_rms_epsilon", -1.0f } }),
        "the norm epsilon must be a finite number of at least 0, got -1.000000");
}

} // namespace
} // namespace attn
