// SPDX-License-Identifier: MIT
// Proves that "fail on any validation message" really fires: a deliberately invalid Vulkan call must reach the
// messenger's counter and turn the check every Vulkan test runs in TearDown into a failure.
#include "vulkan_test_support.h"

#include "vulkan/vk_context.h"
#include "vulkan/vulkan_backend.h"

#include <gtest/gtest-spi.h>

#include <cstdlib>
#include <iostream>

namespace attn::test {
namespace {

class ValidationFires : public VulkanTest { };

TEST_F(ValidationFires, InvalidCallBecomesATestFailure)
{
    if (!vulkanValidationActive()) {
        if (std::getenv("CI"))
            FAIL() << "the validation layer is not active (AS_VULKAN_VALIDATE=1, package vulkan-validationlayers)";
        std::cerr << "\n*** validation layer not active (run through ctest, or set AS_VULKAN_VALIDATE=1): SKIPPED\n";
        GTEST_SKIP() << "validation layer not active";
    }
    vk::Context context; // a device on the process's instance, so its messages reach the same messenger
    expectNoNewValidationMessages(); // creating a device is clean
    const uint64_t before = vulkanValidationMessages();

    // Invalid on purpose: a buffer needs at least one usage bit (VUID-VkBufferCreateInfo-usage-requiredbitmask).
    auto info = vk::makeInfo<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    info.size = 256;
    info.usage = 0;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer buffer = VK_NULL_HANDLE;
    if (vkCreateBuffer(context.device(), &info, nullptr, &buffer) == VK_SUCCESS)
        vkDestroyBuffer(context.device(), buffer, nullptr);

    EXPECT_GT(vulkanValidationMessages(), before) << "the invalid call was not reported by the validation layer";
    EXPECT_NONFATAL_FAILURE(expectNoNewValidationMessages(), "the Vulkan validation layer reported problems");
    acknowledgeValidationMessages(); // provoked on purpose: this test's own TearDown must pass
}

} // namespace
} // namespace attn::test
