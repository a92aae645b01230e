// SPDX-License-Identifier: MIT
// Whole models with --backend vulkan through the CLI: the golden HF attention fixtures and llama2.c's greedy story.
#include "vulkan_test_support.h"

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
    const std::string cmd = "AS_VULKAN_VALIDATE=1 /usr/bin/python3 " + sharedPath("tools/check_fixtures.py") + " "
        + cliPath() + " " + sharedPath("fixtures/hf-tiny") + " gpt2,bert,llama --backend vulkan 2>&1";
    EXPECT_EQ(runCommand(cmd, &out), 0) << out;
    EXPECT_NE(out.find("3 passed, 0 failed"), std::string::npos) << out;
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

} // namespace
} // namespace attn::test
