// SPDX-License-Identifier: MIT
#pragma once
// Device and host-visible buffers, recycled through a pool: a forward makes hundreds of short-lived values, and
// allocating Vulkan memory for each one costs more than the kernels on small models. Private to engine/vulkan.
#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace attn::vk {

class Context;

/// Where a buffer lives: device memory the kernels use, or host-visible memory for uploads and read-backs.
enum class Memory { Device, Upload, Readback };

struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr; ///< host view of Upload / Readback buffers
    size_t capacity = 0;
    Memory kind = Memory::Device;
};

/// Shared ownership; the last reference gives the buffer back to its pool (or frees it).
using BufferRef = std::shared_ptr<Buffer>;

class BufferPool {
public:
    explicit BufferPool(Context& context);
    ~BufferPool();
    BufferPool(const BufferPool&) = delete;
    BufferPool& operator=(const BufferPool&) = delete;

    /// A buffer of at least `bytes`; recycled ones are rounded up to a power of two. Throws DeviceFailure.
    BufferRef acquire(size_t bytes, Memory kind);
    /// A buffer of exactly `bytes` that is never recycled (weights, KV mirrors).
    BufferRef acquireExact(size_t bytes, Memory kind);
    /// Frees every idle buffer.
    void trim();

private:
    struct State;
    Buffer* allocate(size_t bytes, Memory kind);
    Buffer* allocateOrTrim(size_t bytes, Memory kind);
    static void destroy(VkDevice device, Buffer* buffer);

    Context& m_context;
    std::shared_ptr<State> m_state; // outlives the pool while buffers are still out
};

} // namespace attn::vk
