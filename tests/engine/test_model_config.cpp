// SPDX-License-Identifier: MIT
// config.json parsing, llama2.c headers and model probing: typed descriptions and one clear error per defect.
#include "core/error.h"
#include "model/llama2c_format.h"
#include "model/model_config.h"
#include "model/model_source.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace attn {
namespace {

std::string configError(const std::string& json)
{
    try {
        parseHfConfigText(json, "cfg.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "<no error>";
}

std::string probeError(const std::string& path)
{
    try {
        probeModel(path);
    } catch (const Error& e) {
        return e.what();
    }
    return "<no error>";
}

#define EXPECT_CONTAINS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

TEST(ModelConfig, ParsesEveryFixtureFamily)
{
    const ModelConfig gpt2 = parseHfConfig(test::sharedPath("fixtures/hf-tiny/gpt2/config.json"));
    EXPECT_EQ(gpt2.modelType, "gpt2");
    EXPECT_EQ(gpt2.kind, ModelKind::Decoder);
    EXPECT_EQ(gpt2.numLayers, 2);
    EXPECT_EQ(gpt2.numHeads, 4);
    EXPECT_EQ(gpt2.headDim, 8);
    EXPECT_EQ(gpt2.intermediateSize, 128); // n_inner null -> 4 * n_embd
    EXPECT_EQ(gpt2.vocabSize, 300);

    const ModelConfig llama = parseHfConfig(test::sharedPath("fixtures/hf-tiny/llama/config.json"));
    EXPECT_EQ(llama.numKvHeads, 2);
    EXPECT_EQ(llama.ropeStyle, RopeStyle::RotateHalf);
    EXPECT_DOUBLE_EQ(llama.normEps, 1e-6);
    EXPECT_FALSE(llama.tieWordEmbeddings);

    const ModelConfig t5 = parseHfConfig(test::sharedPath("fixtures/hf-tiny/t5/config.json"));
    EXPECT_EQ(t5.kind, ModelKind::EncoderDecoder);
    EXPECT_FALSE(t5.scaleAttention);
    EXPECT_EQ(t5.relativeBuckets, 32);

    const ModelConfig vit = parseHfConfig(test::sharedPath("fixtures/hf-tiny/vit/config.json"));
    EXPECT_EQ(vit.kind, ModelKind::Vision);
    EXPECT_EQ(vit.labels.size(), 10u);
    EXPECT_EQ(vit.labels[3], "LABEL_3");

    const ModelConfig whisper = parseHfConfig(test::sharedPath("fixtures/hf-tiny/whisper/config.json"));
    EXPECT_EQ(whisper.kind, ModelKind::Speech);
    EXPECT_EQ(whisper.numMelBins, 80);

    for (const char* m : { "bert", "marian", "bart", "gpt2-fp16", "gpt2-bf16" })
        EXPECT_NO_THROW(probeModel(test::sharedPath(std::string("fixtures/hf-tiny/") + m))) << m;
}

TEST(ModelConfig, MalformedJson) { EXPECT_CONTAINS(configError("{\"model_type\": "), "cfg.json: malformed JSON"); }

TEST(ModelConfig, NotAnObject) { EXPECT_CONTAINS(configError("[1]"), "config is not a JSON object"); }

TEST(ModelConfig, MissingModelType) { EXPECT_CONTAINS(configError("{\"n_layer\": 2}"), "missing required field \"model_type\""); }

TEST(ModelConfig, UnknownModelTypeListsSupported)
{
    const auto msg = configError(R"({"model_type": "mamba"})");
    EXPECT_CONTAINS(msg, "unsupported model_type \"mamba\"");
    EXPECT_CONTAINS(msg, "gpt2, bert, llama");
}

TEST(ModelConfig, MissingRequiredField)
{
    EXPECT_CONTAINS(configError(R"({"model_type": "gpt2", "n_layer": 2, "n_head": 4, "vocab_size": 10})"),
        "missing required field \"n_embd\"");
}

TEST(ModelConfig, WrongFieldType)
{
    EXPECT_CONTAINS(configError(R"({"model_type": "gpt2", "n_layer": "two", "n_head": 4, "n_embd": 32, "vocab_size": 10})"),
        "field \"n_layer\" must be an integer");
}

TEST(ModelConfig, HiddenNotDivisibleByHeads)
{
    EXPECT_CONTAINS(configError(R"({"model_type": "gpt2", "n_layer": 2, "n_head": 5, "n_embd": 32, "vocab_size": 10})"),
        "hidden size 32 is not divisible by the number of heads 5");
}

TEST(ModelConfig, HeadsNotMultipleOfKvHeads)
{
    EXPECT_CONTAINS(configError(R"({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 3, "hidden_size": 32, "intermediate_size": 64, "vocab_size": 10})"),
        "num_attention_heads 4 is not a multiple of num_key_value_heads 3");
}

TEST(ModelConfig, NonPositiveHeads)
{
    EXPECT_CONTAINS(configError(R"({"model_type": "gpt2", "n_layer": 2, "n_head": 0, "n_embd": 32, "vocab_size": 10})"),
        "number of attention heads must be positive");
}

TEST(ModelConfig, AttentionWiderThan2p31RowsIsRefused)
{
    // 2^32 heads of 2^32 wrap 64 bits in every loader's heads x head_dim; a negative head_dim made negative shapes.
    EXPECT_CONTAINS(configError(R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 4294967296,
        "hidden_size": 32, "head_dim": 4294967296, "intermediate_size": 64, "vocab_size": 10})"),
        "cfg.json: 4294967296 heads of head_dim 4294967296: head_dim must be positive and the heads at most 2^31 rows");
    EXPECT_CONTAINS(configError(R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 4,
        "hidden_size": 32, "head_dim": -8, "intermediate_size": 64, "vocab_size": 10})"),
        "4 heads of head_dim -8: head_dim must be positive");
}

TEST(ModelConfig, NegativeLayers)
{
    EXPECT_CONTAINS(configError(R"({"model_type": "gpt2", "n_layer": -1, "n_head": 4, "n_embd": 32, "vocab_size": 10})"),
        "number of layers must not be negative");
}

TEST(ModelConfig, VitImageNotMultipleOfPatch)
{
    EXPECT_CONTAINS(configError(R"({"model_type": "vit", "num_hidden_layers": 1, "num_attention_heads": 2,
        "hidden_size": 8, "intermediate_size": 16, "image_size": 30, "patch_size": 8})"),
        "image_size 30 is not a multiple of patch_size 8");
}

TEST(ModelConfig, UnsupportedBertPositionType)
{
    EXPECT_CONTAINS(configError(R"({"model_type": "bert", "num_hidden_layers": 1, "num_attention_heads": 2,
        "hidden_size": 8, "vocab_size": 10, "position_embedding_type": "relative_key"})"),
        "position_embedding_type \"relative_key\" is not supported");
}

TEST(ModelConfig, HeadDimOverridesDivision)
{
    const ModelConfig c = parseHfConfigText(R"({"model_type": "llama", "num_hidden_layers": 1, "num_attention_heads": 3,
        "hidden_size": 32, "head_dim": 16, "intermediate_size": 64, "vocab_size": 10})", "cfg.json");
    EXPECT_EQ(c.headDim, 16);
}

TEST(ModelConfig, MistralSlidingWindow)
{
    const ModelConfig c = parseHfConfigText(R"({"model_type": "mistral", "num_hidden_layers": 1, "num_attention_heads": 4,
        "num_key_value_heads": 1, "hidden_size": 32, "intermediate_size": 64, "vocab_size": 10, "sliding_window": 4096})",
        "cfg.json");
    EXPECT_EQ(c.slidingWindow, 4096);
    EXPECT_EQ(c.numKvHeads, 1);
}

TEST(Llama2c, ReadsLegacyAndV1Headers)
{
    for (const char* f : { "models/stories260K/stories260K.bin", "models/stories260K/stories260K_v1.bin" }) {
        const Llama2cHeader h = readLlama2cHeader(test::sharedPath(f));
        EXPECT_EQ(h.config.hiddenSize, 64) << f;
        EXPECT_EQ(h.config.intermediateSize, 172);
        EXPECT_EQ(h.config.numLayers, 5);
        EXPECT_EQ(h.config.numHeads, 8);
        EXPECT_EQ(h.config.numKvHeads, 4);
        EXPECT_EQ(h.config.vocabSize, 512);
        EXPECT_EQ(h.config.maxPositions, 512);
        EXPECT_EQ(h.config.ropeStyle, RopeStyle::Interleaved);
        EXPECT_TRUE(h.sharedClassifier);
    }
    EXPECT_EQ(readLlama2cHeader(test::sharedPath("models/stories260K/stories260K.bin")).headerBytes, 28u);
    EXPECT_EQ(readLlama2cHeader(test::sharedPath("models/stories260K/stories260K_v1.bin")).headerBytes, 256u);
}

class ProbeTest : public ::testing::Test {
protected:
    std::string dir = test::makeTempDir("probe");
    std::string write(const std::string& name, const std::string& bytes)
    {
        const std::string p = dir + "/" + name;
        std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return p;
    }
};

TEST_F(ProbeTest, TruncatedLlama2cNamesExpectedSize)
{
    std::ifstream in(test::sharedPath("models/stories260K/stories260K.bin"), std::ios::binary);
    std::string bytes(100000, '\0');
    in.read(bytes.data(), 100000);
    const auto msg = probeError(write("cut.bin", bytes));
    EXPECT_CONTAINS(msg, "cut.bin: truncated llama2.c checkpoint: the header implies 1056540 bytes, the file has 100000");
}

TEST_F(ProbeTest, GarbageBinIsNotLlama2c)
{
    EXPECT_CONTAINS(probeError(write("junk.bin", std::string(64, '\x7f'))), "junk.bin: not a llama2.c checkpoint");
}

TEST_F(ProbeTest, Llama2cVersion2Refused)
{
    std::string h(256, '\0');
    const uint32_t magic = 0x616b3432, version = 2;
    h.replace(0, 4, reinterpret_cast<const char*>(&magic), 4);
    h.replace(4, 4, reinterpret_cast<const char*>(&version), 4);
    EXPECT_CONTAINS(probeError(write("q8.bin", h)), "version 2 is int8-quantized");
}

TEST_F(ProbeTest, PickleRefusedWithConversionMessage)
{
    const auto msg = probeError(test::sharedPath("models/vit-mnist-tiny/trained_vit_mnist.pth"));
    EXPECT_CONTAINS(msg, "trained_vit_mnist.pth: this is a PyTorch pickle");
    EXPECT_CONTAINS(msg, "Convert it to safetensors");
    EXPECT_CONTAINS(probeError(write("model.bin", std::string("\x80\x02}q\x00.", 6))), "PyTorch pickle");
}

TEST_F(ProbeTest, FolderWithOnlyPickleWeights)
{
    write("config.json", R"({"model_type": "gpt2", "n_layer": 1, "n_head": 1, "n_embd": 4, "vocab_size": 5})");
    write("pytorch_model.bin", "PK\x03\x04 zip");
    EXPECT_CONTAINS(probeError(dir), "pytorch_model.bin: this is a PyTorch pickle");
}

TEST_F(ProbeTest, FolderWithoutConfig)
{
    EXPECT_CONTAINS(probeError(dir), "no config.json in this folder");
}

TEST_F(ProbeTest, MissingPath) { EXPECT_CONTAINS(probeError(dir + "/nope"), "no such file or folder"); }

TEST_F(ProbeTest, TruncatedGgufIsReported)
{
    EXPECT_CONTAINS(probeError(write("m.gguf", "GGUF\x03")), "m.gguf: truncated");
}

TEST(CliInfo, PrintsDescriptionAndRefusesPickle)
{
    std::string out;
    ASSERT_EQ(test::runCommand(test::cliPath() + " info " + test::sharedPath("fixtures/hf-tiny/llama"), &out), 0) << out;
    EXPECT_CONTAINS(out, "\"num_kv_heads\": 2");
    EXPECT_CONTAINS(out, "\"num_parameters\": 35232");
    ASSERT_EQ(test::runCommand(test::cliPath() + " info " + test::sharedPath("models/stories260K/stories260K.bin"), &out), 0);
    EXPECT_CONTAINS(out, "\"format\": \"llama2.c\"");
    EXPECT_CONTAINS(out, "\"intermediate_size\": 172");
    EXPECT_EQ(test::runCommand(test::cliPath() + " info " + test::sharedPath("models/vit-mnist-tiny/trained_vit_mnist.pth"), &out), 1);
    EXPECT_CONTAINS(out, "Convert it to safetensors");
    EXPECT_EQ(test::runCommand(test::cliPath() + " info", &out), 2);
    EXPECT_CONTAINS(out, "missing MODEL");
}

} // namespace
} // namespace attn
