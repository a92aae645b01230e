// SPDX-License-Identifier: MIT
#include "vulkan_test_support.h"

#include "vulkan/vulkan_backend.h"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <memory>
#include <random>

namespace attn::test {

Backend* vulkanBackend(std::string* why)
{
    static std::string reason;
    static const std::unique_ptr<Backend> backend = []() -> std::unique_ptr<Backend> {
        try {
            return createVulkanBackend();
        } catch (const DeviceFailure& e) {
            reason = e.what();
            return nullptr;
        }
    }();
    if (why)
        *why = reason;
    return backend.get();
}

Tensor randomTensor(Shape shape, uint32_t seed, float sigma)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, sigma);
    Tensor t(std::move(shape));
    for (auto& v : t.storage())
        v = dist(rng);
    return t;
}

double maxAbsDiff(const Tensor& a, const Tensor& b)
{
    if (a.shape() != b.shape())
        return std::numeric_limits<double>::infinity();
    double m = 0.0;
    for (int64_t i = 0; i < a.numel(); ++i) {
        const double d = std::abs(static_cast<double>(a.data()[i]) - b.data()[i]);
        if (std::isnan(d))
            return std::numeric_limits<double>::infinity();
        m = std::max(m, d);
    }
    return m;
}

void VulkanTest::SetUp()
{
    std::string why;
    m_vulkan = vulkanBackend(&why);
    if (!m_vulkan) {
        if (std::getenv("CI"))
            FAIL() << "CI requires a Vulkan device (lavapipe: mesa-vulkan-drivers), but: " << why;
        std::cerr << "\n*** NO VULKAN DEVICE: " << why << "\n*** The Vulkan parity tests are SKIPPED, not passed.\n";
        GTEST_SKIP() << "no Vulkan device: " << why;
    }
    const char* validate = std::getenv("AS_VULKAN_VALIDATE");
    if (validate && std::string(validate) == "1" && !vulkanValidationActive()) {
        if (std::getenv("CI"))
            FAIL() << "AS_VULKAN_VALIDATE=1 but the validation layer is not active (vulkan-validationlayers)";
        std::cerr << "*** AS_VULKAN_VALIDATE=1 but VK_LAYER_KHRONOS_validation is not active\n";
    }
    m_validationBefore = vulkanValidationMessages();
}

void VulkanTest::expectNoNewValidationMessages() const
{
    EXPECT_EQ(vulkanValidationMessages(), m_validationBefore) << "the Vulkan validation layer reported problems";
}

void VulkanTest::acknowledgeValidationMessages() { m_validationBefore = vulkanValidationMessages(); }

void VulkanTest::TearDown()
{
    if (m_vulkan)
        expectNoNewValidationMessages();
}

} // namespace attn::test
