// SPDX-License-Identifier: MIT
// Backend choice and CPU fallback: no Vulkan driver at all, and a device that fails at run time.
#include "vulkan_test_support.h"

#include "backend/backend_registry.h"
#include "backend/cpu_backend.h"
#include "core/error.h"
#include "support/shared_data.h"

#include <stdexcept>
#include <vector>

namespace attn::test {
namespace {

const std::string kNoIcd = "VK_DRIVER_FILES=/nonexistent VK_ICD_FILENAMES=/nonexistent ";

TEST(BackendChoice, ParsesTheThreeNames)
{
    EXPECT_EQ(parseBackendChoice("auto"), BackendChoice::Auto);
    EXPECT_EQ(parseBackendChoice("cpu"), BackendChoice::Cpu);
    EXPECT_EQ(parseBackendChoice("vulkan"), BackendChoice::Vulkan);
    EXPECT_THROW(parseBackendChoice("gpu"), Error);
}

TEST(BackendChoice, AutoFallsBackToCpuWithoutAnIcd)
{
    std::string out;
    const int rc = runCommand(kNoIcd + cliPath() + " info --devices --backend auto 2>&1", &out);
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("running on the CPU"), std::string::npos) << out;
    EXPECT_NE(out.find("\"selected\": \"cpu\""), std::string::npos) << out;
    EXPECT_NE(out.find("\"vulkan_problem\""), std::string::npos) << out;
}

TEST(BackendChoice, ExplicitVulkanWithoutAnIcdIsAClearError)
{
    std::string out;
    const int rc = runCommand(kNoIcd + cliPath() + " info --devices --backend vulkan 2>&1", &out);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find("vulkan backend unavailable"), std::string::npos) << out;
    EXPECT_EQ(out.find("\"selected\""), std::string::npos) << out;
}

TEST(BackendChoice, CpuNeverTouchesVulkan)
{
    std::string out;
    EXPECT_EQ(runCommand(kNoIcd + cliPath() + " info --devices --backend cpu 2>&1", &out), 0) << out;
    EXPECT_EQ(out.find("running on the CPU"), std::string::npos) << out; // nothing to warn about
    auto sel = createBackend(BackendChoice::Cpu);
    ASSERT_TRUE(sel.ok());
    EXPECT_EQ(sel->backend->name(), "cpu");
    EXPECT_TRUE(sel->notice.empty());
}

/// A device that fails every request the way a real one can.
class FailingBackend final : public Backend {
public:
    FailingBackend(bool lost, int* calls)
        : m_lost(lost)
        , m_calls(calls)
    {
    }
    std::string name() const override { return "failing"; }
    DeviceInfo device() const override { return {}; }
    bool supportsOp(Op op) const override { return op == Op::AttentionProbabilities; }
    AttentionResult attention(const Tensor&, const Tensor&, const Tensor&, const AttentionOptions&) override
    {
        throw std::logic_error("unsupported op dispatched");
    }
    Tensor probabilityTile(const Tensor&, const Tensor&, const TileRange&, const AttentionOptions&) override
    {
        throw std::logic_error("unsupported op dispatched");
    }
    void rope(Tensor&, int64_t, RopeStyle, double, int64_t) override { throw std::logic_error("unsupported op"); }
    Tensor matmul(const Tensor&, const Tensor&, const Tensor*) override { throw std::logic_error("unsupported op"); }
    Tensor attentionProbabilities(const Tensor&, const Tensor&, const AttentionOptions&) override
    {
        ++*m_calls;
        throw DeviceFailure(m_lost ? "vkQueueSubmit failed: VK_ERROR_DEVICE_LOST" : "vkAllocateMemory failed: "
                                                                                    "VK_ERROR_OUT_OF_DEVICE_MEMORY",
            m_lost);
    }

private:
    bool m_lost;
    int* m_calls;
};

TEST(FallbackBackend, OutOfDeviceMemoryRunsTheRequestOnTheCpuAndSaysSoOnce)
{
    int calls = 0;
    std::vector<std::string> notices;
    FallbackBackend b(std::make_unique<FailingBackend>(false, &calls), std::make_unique<CpuBackend>(),
        [&](const std::string& m) { notices.push_back(m); });
    const Tensor q = randomTensor({ 4, 5, 16 }, 1), k = randomTensor({ 2, 5, 16 }, 2);
    const Tensor expected = CpuBackend().attentionProbabilities(q, k, {});
    EXPECT_EQ(maxAbsDiff(b.attentionProbabilities(q, k, {}), expected), 0.0);
    EXPECT_EQ(maxAbsDiff(b.attentionProbabilities(q, k, {}), expected), 0.0);
    EXPECT_EQ(calls, 2); // the device is tried again: memory may be free next time
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("OUT_OF_DEVICE_MEMORY"), std::string::npos);
    EXPECT_NE(notices[0].find("on the CPU"), std::string::npos);
    EXPECT_EQ(b.runtimeFallbacks(), 2);
    EXPECT_EQ(b.name(), "failing");
}

TEST(FallbackBackend, DeviceLostSwitchesToTheCpuForGood)
{
    int calls = 0;
    std::vector<std::string> notices;
    FallbackBackend b(std::make_unique<FailingBackend>(true, &calls), std::make_unique<CpuBackend>(),
        [&](const std::string& m) { notices.push_back(m); });
    const Tensor q = randomTensor({ 2, 3, 8 }, 1), k = randomTensor({ 2, 3, 8 }, 2);
    const Tensor expected = CpuBackend().attentionProbabilities(q, k, {});
    EXPECT_EQ(maxAbsDiff(b.attentionProbabilities(q, k, {}), expected), 0.0);
    EXPECT_EQ(maxAbsDiff(b.attentionProbabilities(q, k, {}), expected), 0.0);
    EXPECT_EQ(calls, 1);
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("DEVICE_LOST"), std::string::npos);
    EXPECT_EQ(b.name(), "cpu");
}

TEST(FallbackBackend, UnsupportedOpsGoStraightToTheCpu)
{
    int calls = 0;
    std::vector<std::string> notices;
    FallbackBackend b(std::make_unique<FailingBackend>(false, &calls), std::make_unique<CpuBackend>(),
        [&](const std::string& m) { notices.push_back(m); });
    const Tensor x = randomTensor({ 3, 8 }, 1), w = randomTensor({ 4, 8 }, 2);
    EXPECT_EQ(maxAbsDiff(b.matmul(x, w, nullptr), CpuBackend().matmul(x, w, nullptr)), 0.0);
    EXPECT_TRUE(notices.empty());
}

TEST(FallbackBackend, BadInputIsNotRetriedOnTheCpu)
{
    std::vector<std::string> notices;
    FallbackBackend b(std::make_unique<CpuBackend>(), std::make_unique<CpuBackend>(),
        [&](const std::string& m) { notices.push_back(m); });
    EXPECT_THROW(b.attentionProbabilities(randomTensor({ 3, 2, 8 }, 1), randomTensor({ 2, 2, 8 }, 2), {}), Error);
    EXPECT_TRUE(notices.empty());
}

class AutoChoice : public VulkanTest { };

TEST_F(AutoChoice, TakesAGpuButLeavesASoftwareDeviceToAnExplicitChoice)
{
    std::vector<std::string> notices;
    auto sel = createBackend(BackendChoice::Auto, [&](const std::string& m) { notices.push_back(m); });
    ASSERT_TRUE(sel.ok()) << sel.error();
    if (vk().device().type == "software") { // lavapipe in CI
        EXPECT_EQ(sel->backend->name(), "cpu");
        EXPECT_NE(sel->notice.find("only a software Vulkan device"), std::string::npos) << sel->notice;
        EXPECT_NE(sel->notice.find("running on the CPU"), std::string::npos) << sel->notice;
        auto explicitChoice = createBackend(BackendChoice::Vulkan);
        ASSERT_TRUE(explicitChoice.ok()) << explicitChoice.error();
        EXPECT_EQ(explicitChoice->backend->name(), "vulkan");
    } else {
        EXPECT_EQ(sel->backend->name(), "vulkan");
        EXPECT_TRUE(sel->notice.empty()) << sel->notice;
    }
    EXPECT_TRUE(notices.empty());
}

} // namespace
} // namespace attn::test
