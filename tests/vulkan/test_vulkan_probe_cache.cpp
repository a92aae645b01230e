// SPDX-License-Identifier: MIT
// `--backend auto` on a machine whose only Vulkan device is a software one (lavapipe here): the first start probes
// and remembers, later starts run on the CPU without loading any Vulkan driver, and a change of the driver set-up
// probes again. "Loading a driver" is observed through the Vulkan loader's own debug log.
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace attn::test {
namespace {

struct Start {
    int code = -1;
    std::string output;
    bool loadedDrivers() const { return output.find("DRIVER") != std::string::npos; }
};

Start startCli(const std::string& cache, const std::string& out, const std::string& backend = "auto",
    const std::string& env = {})
{
    Start s;
    s.code = runCommand("env XDG_CACHE_HOME='" + cache + "' VK_LOADER_DEBUG=driver " + env + " '" + cliPath()
            + "' attention '" + sharedPath("fixtures/hf-tiny/gpt2") + "' --tokens 1,2,3 --backend " + backend
            + " --out '" + out + "'",
        &s.output);
    return s;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), {} };
}

TEST(VulkanProbeCache, AutoRemembersASoftwareOnlyProbeUntilTheSetupChanges)
{
    const std::string cache = makeTempDir("probe-cache"), out1 = makeTempDir("probe-1"), out2 = makeTempDir("probe-2");
    const Start first = startCli(cache, out1);
    ASSERT_EQ(first.code, 0) << first.output;
    ASSERT_TRUE(first.loadedDrivers()) << "the loader's debug log shows no driver: " << first.output;
    ASSERT_NE(first.output.find("only a software Vulkan device"), std::string::npos)
        << "this test needs a machine whose only device is a software one (CI: lavapipe): " << first.output;
    EXPECT_TRUE(std::filesystem::exists(cache + "/attnscope/vulkan-probe.txt"));

    const Start second = startCli(cache, out2);
    ASSERT_EQ(second.code, 0) << second.output;
    EXPECT_FALSE(second.loadedDrivers()) << second.output;
    EXPECT_NE(second.output.find("remembered from an earlier start"), std::string::npos) << second.output;
    EXPECT_EQ(readFile(out1 + "/logits.npy"), readFile(out2 + "/logits.npy")); // the same CPU run either way

    // Another driver set-up (here an added manifest) is probed again; an explicit vulkan never reads the cache.
    const Start changed = startCli(cache, out2, "auto", "VK_ADD_DRIVER_FILES=/nonexistent/icd.json");
    EXPECT_TRUE(changed.loadedDrivers()) << changed.output;
    EXPECT_EQ(changed.output.find("remembered from an earlier start"), std::string::npos) << changed.output;
    const Start vulkan = startCli(cache, out2, "vulkan");
    EXPECT_EQ(vulkan.code, 0) << vulkan.output;
    EXPECT_TRUE(vulkan.loadedDrivers()) << vulkan.output;
}

TEST(VulkanProbeCache, ADamagedCacheFileIsProbedAgainAndRewritten)
{
    const std::string cache = makeTempDir("probe-damaged"), out = makeTempDir("probe-damaged-out");
    std::filesystem::create_directories(cache + "/attnscope");
    std::ofstream(cache + "/attnscope/vulkan-probe.txt") << "attnscope-vulkan-probe 1\n0123\n";
    const Start s = startCli(cache, out);
    ASSERT_EQ(s.code, 0) << s.output;
    EXPECT_TRUE(s.loadedDrivers()) << s.output;
    EXPECT_NE(readFile(cache + "/attnscope/vulkan-probe.txt").find("only a software Vulkan device"), std::string::npos);
}

} // namespace
} // namespace attn::test
