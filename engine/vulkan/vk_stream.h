// SPDX-License-Identifier: MIT
#pragma once
// The Vulkan stream: every value of a forward lives in device memory; ops are recorded into one job per flush().
// Private to engine/vulkan.
#include "backend/backend.h"
#include "vulkan/vk_resident.h"

#include <memory>

namespace attn::vk {

/// A stream for the weights of `owner`; the caller holds the context mutex while it lives. Each flush adds to traffic.
std::unique_ptr<Stream> makeVulkanStream(
    Context& context, BufferPool& pool, Resident& resident, Owner owner, DeviceTraffic& traffic);

} // namespace attn::vk
