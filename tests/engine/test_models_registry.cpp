// SPDX-License-Identifier: MIT
// The family registry through `attnscope-cli info`: every model the app bundles and every hf-tiny fixture folder is
// described (family, kind, capabilities), the RNN seq2seq demo included; an unknown model_type lists the supported
// ones; the capabilities follow the family.
#include "model/family_registry.h"
#include "model/model_source.h"
#include "model_test_util.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace attn {
namespace {

/// `info` on `path`: exit code 0 and a JSON object with model_type, kind and capabilities.
void expectInfo(const std::string& path)
{
    std::string out;
    ASSERT_EQ(test::runCommand("( " + test::cliPath() + " info '" + path + "' 2>&1 )", &out), 0) << path << ": " << out;
    const auto j = nlohmann::json::parse(out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << path << ": " << out;
    EXPECT_FALSE(j.value("model_type", "").empty()) << path;
    EXPECT_TRUE(j.contains("kind")) << path;
    EXPECT_TRUE(j["capabilities"].is_array()) << path;
}

TEST(FamilyRegistry, InfoDescribesEveryBundledDemo)
{
    int seen = 0;
    for (const auto& entry : fs::directory_iterator(std::string(AS_SOURCE_DIR) + "/resources/models"))
        if (entry.is_directory()) {
            expectInfo(entry.path().string());
            ++seen;
        }
    EXPECT_GE(seen, 4); // stories llama, GRU and Marian translators, ViT shapes
}

TEST(FamilyRegistry, InfoDescribesEveryFixtureFolder)
{
    int seen = 0;
    for (const auto& entry : fs::directory_iterator(test::sharedPath("fixtures/hf-tiny")))
        if (entry.is_directory() && fs::exists(entry.path() / "config.json")) {
            expectInfo(entry.path().string());
            ++seen;
        }
    EXPECT_GE(seen, 28); // the public set's folders with a config.json
}

TEST(FamilyRegistry, UnknownModelTypeListsTheSupportedOnes)
{
    const std::string dir = test::makeTempDir("registry-unknown");
    std::ofstream(dir + "/config.json") << R"({"model_type": "mamba"})";
    std::string out;
    EXPECT_NE(test::runCommand("( " + test::cliPath() + " info " + dir + " 2>&1 )", &out), 0);
    EXPECT_NE(out.find("unsupported model_type \"mamba\""), std::string::npos) << out;
    for (const char* t : { "gemma2", "mixtral", "phi3", "gpt_neox", "opt", "starcoder2", "olmo", "rnn_seq2seq" })
        EXPECT_NE(out.find(t), std::string::npos) << t << " missing from: " << out;
}

TEST(FamilyRegistry, CapabilitiesFollowTheFamily)
{
    const auto caps = [](const std::string& path) { return probeModel(path).config.capabilities; };
    const std::string demos = std::string(AS_SOURCE_DIR) + "/resources/models/";
    EXPECT_EQ(caps(demos + "demo-translate-gru"), kTranslate | kAlign);
    EXPECT_EQ(caps(demos + "demo-translate-marian"), kTranslate | kAlign);
    EXPECT_EQ(caps(demos + "demo-vit-shapes"), kClassify);
    EXPECT_EQ(caps(test::sharedPath("fixtures/hf-tiny/mixtral")), kGenerate);
    EXPECT_EQ(caps(test::sharedPath("fixtures/hf-tiny/bert")), kEncode);
    EXPECT_EQ(caps(test::sharedPath("fixtures/hf-tiny/whisper")), 0u);
    EXPECT_EQ(caps(test::sharedPath("models/stories260K/stories260K.bin")), kGenerate);
    EXPECT_EQ(caps(test::sharedPath("fixtures/gguf/stories260K/stories260K-Q8_0.gguf")), kGenerate);
    EXPECT_EQ(caps(test::sharedPath("models/gpt2-bpe-tokenizer/ggml-vocab-gpt-2.gguf")), 0u); // vocab only
    // Every registered model type maps back to its family, and no two families claim one type.
    for (const ModelFamily& f : modelFamilies())
        for (const std::string& t : f.modelTypes)
            EXPECT_EQ(findFamily(t), &f) << t;
}

} // namespace
} // namespace attn
