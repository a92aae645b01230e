// SPDX-License-Identifier: MIT
#pragma once
// Entry points of the Vulkan backend. Deliberately free of vulkan.h: only engine/vulkan/*.cpp see the Vulkan API.
#include "backend/backend.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attn {

/// The Vulkan backend on the best device (discrete GPU first, else any device with a compute queue).
/// Throws DeviceFailure with a plain reason when there is no loader, driver or suitable device.
std::unique_ptr<Backend> createVulkanBackend();

/// Every Vulkan device with a compute queue; throws DeviceFailure when the instance cannot be created.
std::vector<DeviceInfo> vulkanDevices();

/// With AS_VULKAN_VALIDATE=1: whether VK_LAYER_KHRONOS_validation is really active, and how many validation warnings
/// and errors it reported so far in this process (tests require zero).
bool vulkanValidationActive();
uint64_t vulkanValidationMessages();

} // namespace attn
