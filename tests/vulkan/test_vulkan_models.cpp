// SPDX-License-Identifier: MIT
// Whole models with --backend vulkan through the CLI: the golden HF attention fixtures and llama2.c's greedy story.
#include "vulkan_test_support.h"

#include "core/npy.h"
#include "support/shared_data.h"

#include <fstream>
#include <sstream>

namespace attn::test {
namespace {

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

class VulkanModels : public VulkanTest { };

TEST_F(VulkanModels, GoldenAttentionFixturesOnVulkan)
{
    std::string out;
    const std::string cmd = "AS_VULKAN_VALIDATE=1 " + pythonPath() + " " + sharedPath("tools/check_fixtures.py") + " "
        + cliPath() + " " + sharedPath("fixtures/hf-tiny") + " gpt2,bert,llama --backend vulkan 2>&1";
    EXPECT_EQ(runCommand(cmd, &out), 0) << out;
    EXPECT_NE(out.find("3 passed, 0 failed"), std::string::npos) << out;
    EXPECT_EQ(out.find("vulkan error"), std::string::npos) << out;
    EXPECT_EQ(out.find("vulkan warning"), std::string::npos) << out;
}

/// Issue 16's decoder families (soft-capping, clip_qkv, scaled RoPE, MoE with its mid-layer router read) on Vulkan.
TEST_F(VulkanModels, DecoderFamilyFixturesOnVulkan)
{
    std::string out;
    const std::string cmd = "AS_VULKAN_VALIDATE=1 " + pythonPath() + " " + sharedPath("tools/check_fixtures.py") + " "
        + cliPath() + " " + sharedPath("fixtures/hf-tiny")
        + " gpt_neox,gemma,gemma2,phi,phi3,mixtral,opt,qwen2,mistral,olmo,starcoder2,llama-rope-linear,"
          "llama-rope-dynamic,llama3-rope --backend vulkan 2>&1";
    EXPECT_EQ(runCommand(cmd, &out), 0) << out;
    EXPECT_NE(out.find("14 passed, 0 failed"), std::string::npos) << out;
    EXPECT_EQ(out.find("vulkan error"), std::string::npos) << out;
    EXPECT_EQ(out.find("vulkan warning"), std::string::npos) << out;
}

TEST_F(VulkanModels, Stories260KGreedyOnVulkanMatchesRunC)
{
    const std::string dir = makeTempDir("vk-stories");
    const std::string model = sharedPath("models/stories260K/stories260K.bin");
    // Parenthesized: runCommand adds its own redirections, which must not override ours.
    const std::string cmd = "(AS_VULKAN_VALIDATE=1 " + cliPath() + " generate " + model + " --tokenizer "
        + sharedPath("models/stories260K/tok512.bin") + " --prompt 'Once upon a time' --steps 64 --backend vulkan >"
        + dir + "/out.txt 2>" + dir + "/err.txt)";
    ASSERT_EQ(runCommand(cmd), 0) << readFile(dir + "/err.txt");
    EXPECT_EQ(readFile(dir + "/out.txt"),
        readFile(sharedPath("models/stories260K/expected_greedy_prompt_OnceUponATime_n64.txt")));
    const std::string err = readFile(dir + "/err.txt");
    EXPECT_EQ(err.find("vulkan error"), std::string::npos) << err;
    EXPECT_EQ(err.find("vulkan warning"), std::string::npos) << err;
    EXPECT_EQ(err.find("running on the CPU"), std::string::npos) << err; // it really ran on Vulkan
}

/// A device whose storage buffers hold less than the tied LM head (GPT-2's on lavapipe: 154 MB against 128 MB) and
/// less than the logits (a long prefill with a large vocabulary): the head goes up in row blocks, the logits are
/// computed and read back in row blocks, and the forward stays on the device, with the CPU's numbers.
TEST_F(VulkanModels, WeightsAndLogitsLargerThanOneBufferRunInBlocks)
{
    const std::string dir = makeTempDir("vk-blocks");
    // Tied head [300, 32]: 38 KB, 3 blocks of 16 KB; logits [20, 300]: 24 KB, 2 blocks of 13 rows.
    const std::string fixture = sharedPath("fixtures/hf-tiny/gpt2");
    const auto run = [&](const std::string& env, const std::string& backend) {
        const std::string out = dir + "/" + backend;
        const std::string cmd = "(" + env + cliPath() + " attention " + fixture
            + " --tokens 1,5,9,14,3,27,8,11,2,40,7,19,23,4,6,31,13,17,29,10 --backend "
            + backend + " --out " + out + " 2>" + dir + "/err.txt)";
        EXPECT_EQ(runCommand(cmd), 0) << readFile(dir + "/err.txt");
        return out;
    };
    const std::string cpu = run("", "cpu");
    const std::string gpu = run("AS_VULKAN_VALIDATE=1 AS_VULKAN_MAX_BUFFER_BYTES=16384 ", "vulkan");
    const std::string err = readFile(dir + "/err.txt");
    EXPECT_EQ(err.find("on the CPU"), std::string::npos) << err; // no fallback: the blocks ran on the device
    EXPECT_EQ(err.find("vulkan error"), std::string::npos) << err;
    EXPECT_LE(maxAbsDiff(readNpy(gpu + "/logits.npy"), readNpy(cpu + "/logits.npy")), 1e-4);
    for (const char* layer : { "/attn.L0.npy", "/attn.L1.npy" })
        EXPECT_LE(maxAbsDiff(readNpy(gpu + layer), readNpy(cpu + layer)), kParityTolerance) << layer;
}

} // namespace
} // namespace attn::test
