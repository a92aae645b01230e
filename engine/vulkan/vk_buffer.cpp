// SPDX-License-Identifier: MIT
#include "vulkan/vk_buffer.h"

#include "vulkan/vk_context.h"

#include <vector>

namespace attn::vk {

namespace {

constexpr size_t kMinBytes = 256;
// Idle buffers kept for reuse; beyond this they are freed on return.
constexpr size_t kMaxIdleBytes = size_t(512) << 20;
// Larger requests are rare (a big weight's staging) and would waste up to half of a power-of-two size: never pooled.
constexpr size_t kMaxPooledBytes = size_t(64) << 20;

size_t roundUp(size_t bytes)
{
    size_t size = kMinBytes;
    while (size < bytes)
        size *= 2;
    return size;
}

} // namespace

struct BufferPool::State {
    std::mutex mutex;
    VkDevice device = VK_NULL_HANDLE;
    bool open = true;
    size_t idleBytes = 0;
    std::multimap<std::pair<Memory, size_t>, Buffer*> idle;
};

BufferPool::BufferPool(Context& context)
    : m_context(context)
    , m_state(std::make_shared<State>())
{
    m_state->device = context.device();
}

BufferPool::~BufferPool()
{
    trim();
    const std::lock_guard lock(m_state->mutex);
    m_state->open = false;
}

void BufferPool::trim()
{
    const std::lock_guard lock(m_state->mutex);
    for (auto& [key, buffer] : m_state->idle)
        destroy(m_state->device, buffer);
    m_state->idle.clear();
    m_state->idleBytes = 0;
}

void BufferPool::destroy(VkDevice device, Buffer* b)
{
    if (b->mapped)
        vkUnmapMemory(device, b->memory);
    if (b->buffer)
        vkDestroyBuffer(device, b->buffer, nullptr);
    if (b->memory)
        vkFreeMemory(device, b->memory, nullptr);
    delete b;
}

Buffer* BufferPool::allocate(size_t bytes, Memory kind)
{
    const VkDevice dev = m_context.device();
    if (bytes > m_context.limits().maxStorageBufferRange)
        throw DeviceFailure("a buffer of " + std::to_string(bytes) + " bytes exceeds the device's storage buffer limit");
    auto* b = new Buffer;
    b->capacity = bytes;
    b->kind = kind;
    try {
        auto bci = makeInfo<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
        bci.size = bytes;
        bci.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT
            | (kind == Memory::Device ? VK_BUFFER_USAGE_STORAGE_BUFFER_BIT : 0);
        bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        AS_VK_CHECK(vkCreateBuffer(dev, &bci, nullptr, &b->buffer));
        VkMemoryRequirements req {};
        vkGetBufferMemoryRequirements(dev, b->buffer, &req);
        const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        auto mai = makeInfo<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = kind == Memory::Device
            ? m_context.memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0)
            : m_context.memoryType(
                req.memoryTypeBits, host, kind == Memory::Readback ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : 0);
        AS_VK_CHECK(vkAllocateMemory(dev, &mai, nullptr, &b->memory));
        AS_VK_CHECK(vkBindBufferMemory(dev, b->buffer, b->memory, 0));
        if (kind != Memory::Device)
            AS_VK_CHECK(vkMapMemory(dev, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped));
    } catch (...) {
        destroy(dev, b);
        throw;
    }
    return b;
}

Buffer* BufferPool::allocateOrTrim(size_t bytes, Memory kind)
{
    try {
        return allocate(bytes, kind);
    } catch (const DeviceFailure&) {
        trim(); // idle buffers may be what fills the device: retry once without them
        return allocate(bytes, kind);
    }
}

BufferRef BufferPool::acquire(size_t bytes, Memory kind)
{
    if (bytes > kMaxPooledBytes)
        return acquireExact(bytes, kind);
    const size_t size = roundUp(bytes);
    Buffer* b = nullptr;
    {
        const std::lock_guard lock(m_state->mutex);
        if (auto it = m_state->idle.find({ kind, size }); it != m_state->idle.end()) {
            b = it->second;
            m_state->idle.erase(it);
            m_state->idleBytes -= size;
        }
    }
    if (!b)
        b = allocateOrTrim(size, kind);
    return BufferRef(b, [state = m_state](Buffer* buffer) {
        const std::lock_guard lock(state->mutex);
        if (state->open && state->idleBytes + buffer->capacity <= kMaxIdleBytes) {
            state->idle.emplace(std::make_pair(buffer->kind, buffer->capacity), buffer);
            state->idleBytes += buffer->capacity;
        } else {
            destroy(state->device, buffer);
        }
    });
}

BufferRef BufferPool::acquireExact(size_t bytes, Memory kind)
{
    Buffer* b = allocateOrTrim(std::max(bytes, kMinBytes), kind);
    return BufferRef(b, [device = m_context.device()](Buffer* buffer) { destroy(device, buffer); });
}

} // namespace attn::vk
