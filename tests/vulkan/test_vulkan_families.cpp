// SPDX-License-Identifier: MIT
// The encoder and encoder-decoder families on the Vulkan stream (every pass resident on the device): the hf-tiny BERT,
// ViT, Marian, BART, T5, Whisper and ViT + GPT-2 captioner fixtures against their HF goldens at the manifests'
// tolerances, decoding step by step through the KV mirror, and BERT with padded keys or F16 weights against the CPU.
#include "vulkan_test_support.h"

#include "core/npy.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "model/seq2seq_model.h"
#include "model/vision_model.h"
#include "support/half_copy.h"
#include "support/shared_data.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

namespace attn::test {
namespace {

struct Golden {
    explicit Golden(const std::string& fixture)
        : dir(sharedPath("fixtures/hf-tiny/" + fixture))
    {
        std::ifstream in(dir + "/manifest.json");
        tolerances = nlohmann::json::parse(in)["suggested_tolerances"]["max_abs_diff"];
    }
    Tensor tensor(const std::string& file) const { return readNpy(dir + "/golden/item0/" + file); }
    std::vector<int64_t> ids(const std::string& file) const { return readNpyInts(dir + "/golden/item0/" + file); }
    double tolerance(const char* what) const { return tolerances[what].get<double>(); }

    /// Attention and hidden states of every layer, and the logits, against the goldens.
    void expectMatches(const StepResult& r, int64_t layers, const Tensor& logits) const
    {
        ASSERT_EQ(static_cast<int64_t>(r.attention.size()), layers);
        ASSERT_EQ(static_cast<int64_t>(r.hiddenStates.size()), layers + 1);
        char name[64];
        for (int64_t l = 0; l < layers; ++l) {
            std::snprintf(name, sizeof name, "attentions.L%02lld.npy", static_cast<long long>(l));
            EXPECT_LE(maxAbsDiff(r.attention[static_cast<size_t>(l)], tensor(name)), tolerance("attentions")) << name;
        }
        for (int64_t i = 0; i <= layers; ++i) {
            std::snprintf(name, sizeof name, "hidden_states.%02lld.npy", static_cast<long long>(i));
            EXPECT_LE(maxAbsDiff(r.hiddenStates[static_cast<size_t>(i)], tensor(name)), tolerance("hidden_states"))
                << name;
        }
        EXPECT_LE(maxAbsDiff(logits, tensor("logits.npy")), tolerance("logits"));
    }

    /// Layer l of a per-layer golden: "<stem>.L0l.npy" (attention) or "<stem>.0l.npy" (hidden states).
    Tensor layer(const char* stem, int64_t l, bool attention) const
    {
        char name[64];
        std::snprintf(name, sizeof name, attention ? "%s.L%02lld.npy" : "%s.%02lld.npy", stem, static_cast<long long>(l));
        return tensor(name);
    }

    std::string dir;
    nlohmann::json tolerances;
};

class VulkanEncoders : public VulkanTest {
protected:
    ForwardOptions onVulkan()
    {
        ForwardOptions o;
        o.backend = &vk();
        o.wantHiddenStates = true;
        return o;
    }
};

std::vector<uint8_t> asMask(const std::vector<int64_t>& ids) { return std::vector<uint8_t>(ids.begin(), ids.end()); }

TEST_F(VulkanEncoders, BertMatchesHf)
{
    const Golden g("bert");
    const auto model = std::dynamic_pointer_cast<const EncoderModel>(loadModel(g.dir));
    ASSERT_TRUE(model);
    const DeviceTraffic before = vk().traffic();
    const StepResult r = model->encode(
        g.ids("input_ids.npy"), g.ids("token_type_ids.npy"), asMask(g.ids("attention_mask.npy")), onVulkan());
    EXPECT_GT(vk().traffic().submits, before.submits); // it really ran on the device
    g.expectMatches(r, model->config().numLayers, r.logits);
}

TEST_F(VulkanEncoders, BertWithPaddedKeysMatchesTheCpu)
{
    const auto model = std::dynamic_pointer_cast<const EncoderModel>(loadModel(sharedPath("fixtures/hf-tiny/bert")));
    ASSERT_TRUE(model);
    const std::vector<int64_t> tokens { 2, 17, 33, 8, 41, 5, 0, 0 };
    const std::vector<uint8_t> mask { 1, 1, 1, 1, 1, 1, 0, 0 };
    const StepResult cpu = model->encode(tokens, {}, mask, {});
    const StepResult gpu = model->encode(tokens, {}, mask, onVulkan());
    ASSERT_EQ(gpu.attention.size(), cpu.attention.size());
    for (size_t l = 0; l < cpu.attention.size(); ++l) {
        EXPECT_LE(maxAbsDiff(gpu.attention[l], cpu.attention[l]), kParityTolerance) << "layer " << l;
        EXPECT_EQ(gpu.attention[l].at({ 0, 0, 7 }), 0.0f); // a padded key gets exactly nothing
    }
    EXPECT_LE(maxAbsDiff(gpu.logits, cpu.logits), 1e-4);
}

/// F16 weights kept half on the host are widened as they go up to the device: the same numbers as the CPU's products
/// over the same halves.
TEST_F(VulkanEncoders, HalfBertMatchesTheCpu)
{
    const Golden g("bert");
    const std::string dir = roundedFolder("bert", makeTempDir("vulkan-half-bert") + "/f16", GgmlType::F16, true);
    const auto model = std::dynamic_pointer_cast<const EncoderModel>(loadModel(dir));
    ASSERT_TRUE(model);
    const std::vector<int64_t> tokens = g.ids("input_ids.npy"), types = g.ids("token_type_ids.npy");
    const StepResult cpu = model->encode(tokens, types, {}, {});
    const DeviceTraffic before = vk().traffic();
    const StepResult gpu = model->encode(tokens, types, {}, onVulkan());
    EXPECT_GT(vk().traffic().submits, before.submits);
    ASSERT_EQ(gpu.attention.size(), cpu.attention.size());
    for (size_t l = 0; l < cpu.attention.size(); ++l)
        EXPECT_LE(maxAbsDiff(gpu.attention[l], cpu.attention[l]), g.tolerance("attentions")) << "layer " << l;
    EXPECT_LE(maxAbsDiff(gpu.logits, cpu.logits), g.tolerance("logits"));
}

TEST_F(VulkanEncoders, VitMatchesHf)
{
    const Golden g("vit");
    const auto model = std::dynamic_pointer_cast<const VisionModel>(loadModel(g.dir));
    ASSERT_TRUE(model);
    const StepResult r = model->classify(g.tensor("pixel_values.npy"), onVulkan());
    ASSERT_EQ(r.logits.dim(0), 1);
    g.expectMatches(r, model->config().numLayers, r.logits.reshaped({ r.logits.dim(1) }));
}

class VulkanEncoderDecoders : public VulkanEncoders, public ::testing::WithParamInterface<const char*> { };

TEST_P(VulkanEncoderDecoders, FullForwardMatchesHfAndStepsMatchIt)
{
    const std::string name = GetParam();
    const Golden g(name);
    const auto model = std::dynamic_pointer_cast<const EncoderDecoderModel>(loadModel(g.dir));
    ASSERT_TRUE(model);
    EncoderInput source;
    if (name == "whisper")
        source.features = g.tensor("input_features.npy");
    else if (name == "vision-encoder-decoder")
        source.pixels = g.tensor("pixel_values.npy");
    else
        source.tokens = g.ids("input_ids.npy");
    const ForwardOptions options = onVulkan();
    const auto enc = model->encode(source, options);
    const std::vector<int64_t> target = g.ids("decoder_input_ids.npy");
    KvCache full = model->newDecoderCache();
    const Seq2SeqStepResult dec = model->decode(*enc, full, target, options);

    const int64_t L = model->config().numLayers, Ld = model->decoderLayers();
    ASSERT_EQ(enc->attention.size(), static_cast<size_t>(L));
    ASSERT_EQ(enc->hiddenStates.size(), static_cast<size_t>(L + 1));
    ASSERT_EQ(dec.attention.size(), static_cast<size_t>(Ld));
    ASSERT_EQ(dec.hiddenStates.size(), static_cast<size_t>(Ld + 1));
    for (int64_t l = 0; l < L; ++l)
        EXPECT_LE(maxAbsDiff(enc->attention[l], g.layer("encoder_attentions", l, true)),
            g.tolerance("encoder_attentions"))
            << "encoder layer " << l;
    for (int64_t i = 0; i <= L; ++i)
        EXPECT_LE(maxAbsDiff(enc->hiddenStates[i], g.layer("encoder_hidden_states", i, false)),
            g.tolerance("encoder_hidden_states"))
            << "encoder hidden state " << i;
    for (int64_t l = 0; l < Ld; ++l) {
        EXPECT_LE(maxAbsDiff(dec.attention[l], g.layer("decoder_attentions", l, true)),
            g.tolerance("decoder_attentions"))
            << "decoder layer " << l;
        EXPECT_LE(maxAbsDiff(dec.crossAttention[l], g.layer("cross_attentions", l, true)),
            g.tolerance("cross_attentions"))
            << "cross layer " << l;
    }
    for (int64_t i = 0; i <= Ld; ++i)
        EXPECT_LE(maxAbsDiff(dec.hiddenStates[i], g.layer("decoder_hidden_states", i, false)),
            g.tolerance("decoder_hidden_states"))
            << "decoder hidden state " << i;
    EXPECT_LE(maxAbsDiff(dec.logits, g.tensor("logits.npy")), g.tolerance("logits"));

    // One position at a time through the device's KV mirror (T5: with its relative-position bias) gives the same
    // logits row by row.
    // The encoder's cross-attention keys and values stay on the device: a step sends less than they hold.
    KvCache cache = model->newDecoderCache();
    const int64_t T = static_cast<int64_t>(target.size()), V = dec.logits.dim(1);
    uint64_t crossBytes = 0;
    for (size_t l = 0; l < enc->crossKeys.size(); ++l)
        crossBytes += uint64_t(enc->crossKeys[l].numel() + enc->crossValues[l].numel()) * sizeof(float);
    for (int64_t t = 0; t < T; ++t) {
        const uint64_t before = vk().traffic().uploadedBytes;
        const Seq2SeqStepResult step = model->decode(*enc, cache, { target[static_cast<size_t>(t)] }, options);
        if (t > 0) {
            EXPECT_LT(vk().traffic().uploadedBytes - before, crossBytes) << "step " << t;
        }
        const Tensor row({ 1, V }, std::vector<float>(dec.logits.data() + t * V, dec.logits.data() + (t + 1) * V));
        EXPECT_LE(maxAbsDiff(step.logits, row), g.tolerance("logits")) << "step " << t;
    }
}

INSTANTIATE_TEST_SUITE_P(
    HfTiny, VulkanEncoderDecoders, ::testing::Values("marian", "bart", "t5", "whisper", "vision-encoder-decoder"));

} // namespace
} // namespace attn::test
