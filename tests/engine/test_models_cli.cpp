// SPDX-License-Identifier: MIT
// attnscope-cli generate / attention end to end: stories260K prints exactly what llama2.c run.c prints (greedy,
// seeded top-p sampling, prompt), the attention files match the model, and bad requests fail with clear messages.
#include "core/npy.h"
#include "model_test_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace attn {
namespace {

std::string fileText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// stdout of the CLI (stderr dropped) and its exit code.
int cliStdout(const std::string& args, std::string* out) {
    return test::runCommand("( " + test::cliPath() + " " + args + " 2>/dev/null )", out);
}

std::string stories(const std::string& file) {
    return test::sharedPath("models/stories260K/" + file);
}

class GenerateStories : public ::testing::TestWithParam<const char*> { };

TEST_P(GenerateStories, GreedyPrintsExactlyWhatRunCPrints) {
    std::string out;
    ASSERT_EQ(cliStdout("generate " + stories(GetParam()) + " --temperature 0 --steps 256", &out), 0);
    EXPECT_EQ(out, fileText(stories("expected_greedy_t0.0_n256.txt")));
}

TEST_P(GenerateStories, SeededTopPSamplingPrintsExactlyWhatRunCPrints) {
    std::string out;
    ASSERT_EQ(
        cliStdout("generate " + stories(GetParam()) + " --temperature 1.0 --top-p 0.9 --seed 133742 --steps 256", &out),
        0);
    EXPECT_EQ(out, fileText(stories("expected_sample_t1.0_p0.9_s133742_n256.txt")));
}

TEST_P(GenerateStories, PromptPrintsExactlyWhatRunCPrints) {
    std::string out;
    ASSERT_EQ(
        cliStdout("generate " + stories(GetParam()) + " --temperature 0 --steps 64 --prompt 'Once upon a time'", &out),
        0);
    EXPECT_EQ(out, fileText(stories("expected_greedy_prompt_OnceUponATime_n64.txt")));
}

INSTANTIATE_TEST_SUITE_P(Layouts, GenerateStories, ::testing::Values("stories260K.bin", "stories260K_v1.bin"),
    [](const auto& info) { return std::string(info.index == 0 ? "legacy" : "v1"); });

TEST(GenerateCli, MaxNewTokensCountsSampledTokens) {
    // BOS + 5 new tokens: the first 5 tokens of the greedy story.
    std::string out;
    ASSERT_EQ(cliStdout("generate " + stories("stories260K.bin") + " --max-new-tokens 5 --tokens 1", &out), 0);
    EXPECT_EQ(out, "Once upon a time,\n");
}

// A small model's decode never needs OpenBLAS, so the CLI does not open it (it was half of a start, issue 22): the
// dynamic loader's own log of the libraries it opens names libstdc++ and not OpenBLAS.
TEST(GenerateCli, ASmallModelsDecodeNeverOpensOpenBlas) {
    std::string log;
    ASSERT_EQ(test::runCommand("( LD_DEBUG=libs " + test::cliPath() + " generate " + stories("stories260K.bin")
                      + " --temperature 0 --steps 16 2>&1 >/dev/null )",
                  &log),
        0);
    EXPECT_NE(log.find("libstdc++"), std::string::npos) << "no loader log: " << log.substr(0, 500);
    EXPECT_EQ(log.find("libopenblas"), std::string::npos) << log.substr(0, 2000);
}

TEST(AttentionCli, StoriesFilesMatchTheReference) {
    const std::string dir = test::makeTempDir("attn-cli");
    std::string out;
    ASSERT_EQ(
        cliStdout("attention " + stories("stories260K.bin") + " --prompt 'Once upon a time' --out " + dir, &out), 0)
        << out;
    const Tensor a0 = readNpy(dir + "/attn.L0.npy");
    EXPECT_EQ(a0.shape(), (Shape { 8, 5, 5 })); // BOS + 4 tokens
    EXPECT_EQ(a0.at({ 3, 1, 2 }), 0.0f); // causal
    EXPECT_EQ(readNpy(dir + "/logits.npy").shape(), (Shape { 5, 512 }));
    const auto manifest = nlohmann::json::parse(fileText(dir + "/manifest.json"));
    ASSERT_EQ(manifest["tokens"].size(), 5u);
    EXPECT_EQ(manifest["tokens"][0]["id"], 1);
    EXPECT_EQ(manifest["tokens"][1]["text"], " Once");
}

TEST(AttentionCli, UnsupportedRequestsFailClearly) {
    const std::string gpt2 = test::sharedPath("fixtures/hf-tiny/gpt2");
    const std::string dir = test::makeTempDir("attn-cli-bad");
    std::string out;
    EXPECT_EQ(test::runCommand(
                  test::cliPath() + " attention " + gpt2 + " --tokens 1,2 --decoder-tokens 3 --out " + dir, &out),
        1);
    EXPECT_NE(out.find("not supported for this model"), std::string::npos) << out;
    EXPECT_EQ(
        test::runCommand(test::cliPath() + " attention " + gpt2 + " --tokens 1,2 --image x.png --out " + dir, &out), 1);
    EXPECT_NE(out.find("not supported for this model"), std::string::npos) << out;
    EXPECT_EQ(
        test::runCommand(test::cliPath() + " attention " + gpt2 + " --tokens 1,2 --backend metal --out " + dir, &out),
        1);
    EXPECT_NE(out.find("unknown backend 'metal'"), std::string::npos) << out;
    EXPECT_EQ(test::runCommand(test::cliPath() + " attention " + gpt2 + " --tokens 1,999 --out " + dir, &out), 1);
    EXPECT_NE(out.find("999"), std::string::npos) << out;
}

TEST(GenerateCli, PickleIsRefusedWithTheConversionMessage) {
    const std::string pth = test::sharedPath("models/vit-mnist-tiny/trained_vit_mnist.pth");
    for (const char* cmd : { "generate --tokens 1", "attention --tokens 1 --out /tmp/x" }) {
        const std::string name(cmd);
        std::string out;
        EXPECT_EQ(
            test::runCommand(
                test::cliPath() + " " + name.substr(0, name.find(' ')) + " " + pth + name.substr(name.find(' ')), &out),
            1)
            << cmd;
        EXPECT_NE(out.find("pickle"), std::string::npos) << out;
        EXPECT_NE(out.find("safetensors"), std::string::npos) << out;
    }
}

} // namespace
} // namespace attn
