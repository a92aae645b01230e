// SPDX-License-Identifier: MIT
#pragma once
// One request on the device: device buffers (with staging where the host cannot map them), a command buffer with the
// uploads, dispatches and downloads, one submit and one wait. Everything it made is released when it ends.
#include "vulkan/vk_context.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace attn::vk {

class Job {
public:
    struct Buffer;

    explicit Job(Context& context);
    ~Job();
    Job(const Job&) = delete;
    Job& operator=(const Job&) = delete;

    /// A device buffer holding a copy of data[0, bytes); with readBack its final contents can be read after run().
    Buffer& input(const void* data, size_t bytes, bool readBack = false);
    /// A device buffer the kernels write, read after run().
    Buffer& output(size_t bytes);
    /// A small unused buffer for an absent optional operand.
    Buffer& placeholder();

    /// Records one dispatch of `kernel` over `groups` workgroups with buffers bound to 0, 1, ... in order.
    void dispatch(const Kernel& kernel, const std::vector<Buffer*>& buffers, const void* push, uint32_t groupsX,
        uint32_t groupsY = 1, uint32_t groupsZ = 1);
    /// Submits everything and waits; throws DeviceFailure (device lost, out of memory, timeout).
    void run();
    /// Copies a read-back buffer's contents to dst after run().
    void read(const Buffer& buffer, void* dst, size_t bytes) const;

private:
    Buffer& create(size_t bytes, bool upload, bool readBack);
    void allocate(VkBuffer& buffer, VkDeviceMemory& memory, size_t bytes, VkBufferUsageFlags usage,
        VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred, void** mapped);

    Context& m_context;
    VkCommandBuffer m_cmd = VK_NULL_HANDLE;
    VkFence m_fence = VK_NULL_HANDLE;
    std::vector<std::unique_ptr<Buffer>> m_buffers;
    std::vector<VkDescriptorPool> m_pools;
    bool m_dispatched = false;
};

} // namespace attn::vk
