// SPDX-License-Identifier: MIT
#pragma once
// Shared by the Vulkan tests: the process-wide Vulkan backend (or a loud skip / CI failure), random tensors and
// the max-abs-error comparison against the CPU backend.
#include "backend/backend.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace attn::test {

/// The Vulkan backend shared by every test of the process; null when there is no device (reason in `why`).
Backend* vulkanBackend(std::string* why);

/// Normal(0, sigma) values, deterministic per seed.
Tensor randomTensor(Shape shape, uint32_t seed, float sigma = 1.0f);

/// Max |a - b| over all elements (infinity when shapes differ or a value is NaN).
double maxAbsDiff(const Tensor& a, const Tensor& b);

/// The fp32 parity bound between the Vulkan kernels and the CPU core.
constexpr double kParityTolerance = 1e-5;

/// Every Vulkan test derives from this: it skips (or, with CI set, fails) without a device and fails on any
/// validation message reported while the test ran.
class VulkanTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;
    Backend& vk() { return *m_vulkan; }
    /// The check TearDown runs: fails the test when validation messages arrived since SetUp (or since the last
    /// acknowledgeValidationMessages()).
    void expectNoNewValidationMessages() const;
    /// Accepts the messages so far, for a test that provokes them on purpose.
    void acknowledgeValidationMessages();

private:
    Backend* m_vulkan = nullptr;
    uint64_t m_validationBefore = 0;
};

} // namespace attn::test
