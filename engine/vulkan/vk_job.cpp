// SPDX-License-Identifier: MIT
#include "vulkan/vk_job.h"

#include <cstring>

namespace attn::vk {

struct Job::Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr; // direct host view (unified memory)
    VkBuffer staging = VK_NULL_HANDLE;
    VkDeviceMemory stagingMemory = VK_NULL_HANDLE;
    void* stagingMapped = nullptr;
    size_t bytes = 0;
    bool upload = false;
    bool readBack = false;
};

namespace {

// A generous bound: a busy software device may take long, a hung one must not hang the app.
constexpr uint64_t kWaitNanoseconds = 600ull * 1000 * 1000 * 1000;

} // namespace

Job::Job(Context& context)
    : m_context(context)
{
    auto ai = makeInfo<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    ai.commandPool = context.commandPool();
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    AS_VK_CHECK(vkAllocateCommandBuffers(context.device(), &ai, &m_cmd));
    auto fci = makeInfo<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    if (const VkResult r = vkCreateFence(context.device(), &fci, nullptr, &m_fence); r != VK_SUCCESS) {
        vkFreeCommandBuffers(context.device(), context.commandPool(), 1, &m_cmd);
        throwFailure(r, "vkCreateFence", __FILE__, __LINE__);
    }
    auto bi = makeInfo<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(m_cmd, &bi);
}

Job::~Job()
{
    const VkDevice dev = m_context.device();
    // A failed submit may leave work queued; wait so nothing is freed while in use.
    vkQueueWaitIdle(m_context.queue());
    for (auto pool : m_pools)
        vkDestroyDescriptorPool(dev, pool, nullptr);
    for (auto& b : m_buffers) {
        if (b->buffer)
            vkDestroyBuffer(dev, b->buffer, nullptr);
        if (b->memory)
            vkFreeMemory(dev, b->memory, nullptr);
        if (b->staging)
            vkDestroyBuffer(dev, b->staging, nullptr);
        if (b->stagingMemory)
            vkFreeMemory(dev, b->stagingMemory, nullptr);
    }
    vkDestroyFence(dev, m_fence, nullptr);
    vkFreeCommandBuffers(dev, m_context.commandPool(), 1, &m_cmd);
}

void Job::allocate(VkBuffer& buffer, VkDeviceMemory& memory, size_t bytes, VkBufferUsageFlags usage,
    VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred, void** mapped)
{
    const VkDevice dev = m_context.device();
    if (bytes > m_context.limits().maxStorageBufferRange)
        throw DeviceFailure("a buffer of " + std::to_string(bytes) + " bytes exceeds the device's storage buffer limit");
    auto bci = makeInfo<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    bci.size = bytes;
    bci.usage = usage;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    AS_VK_CHECK(vkCreateBuffer(dev, &bci, nullptr, &buffer));
    VkMemoryRequirements req {};
    vkGetBufferMemoryRequirements(dev, buffer, &req);
    auto mai = makeInfo<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = m_context.memoryType(req.memoryTypeBits, required, preferred);
    AS_VK_CHECK(vkAllocateMemory(dev, &mai, nullptr, &memory));
    AS_VK_CHECK(vkBindBufferMemory(dev, buffer, memory, 0));
    if (mapped)
        AS_VK_CHECK(vkMapMemory(dev, memory, 0, VK_WHOLE_SIZE, 0, mapped));
}

Job::Buffer& Job::create(size_t bytes, bool upload, bool readBack)
{
    auto b = std::make_unique<Buffer>();
    Buffer& buf = *b;
    m_buffers.push_back(std::move(b)); // owned before anything can throw, so the destructor frees it
    buf.bytes = bytes;
    buf.upload = upload;
    buf.readBack = readBack;
    const size_t size = std::max<size_t>(bytes, 4); // Vulkan buffers cannot be empty
    const VkMemoryPropertyFlags hostFlags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkBufferUsageFlags usage
        = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    if (m_context.unifiedMemory()) {
        allocate(buf.buffer, buf.memory, size, usage, hostFlags | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &buf.mapped);
        return buf;
    }
    allocate(buf.buffer, buf.memory, size, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, nullptr);
    if (upload || readBack)
        allocate(buf.staging, buf.stagingMemory, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
            hostFlags, readBack ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : 0, &buf.stagingMapped);
    return buf;
}

Job::Buffer& Job::input(const void* data, size_t bytes, bool readBack)
{
    Buffer& b = create(bytes, true, readBack);
    if (bytes) {
        std::memcpy(b.mapped ? b.mapped : b.stagingMapped, data, bytes);
        if (b.staging) {
            const VkBufferCopy region { 0, 0, bytes };
            vkCmdCopyBuffer(m_cmd, b.staging, b.buffer, 1, &region);
        }
    }
    return b;
}

Job::Buffer& Job::output(size_t bytes) { return create(bytes, false, true); }

Job::Buffer& Job::placeholder() { return create(4, false, false); }

void Job::dispatch(
    const Kernel& kernel, const std::vector<Buffer*>& buffers, const void* push, uint32_t gx, uint32_t gy, uint32_t gz)
{
    const VkDevice dev = m_context.device();
    const auto& maxGroups = m_context.limits().maxComputeWorkGroupCount;
    if (gx > maxGroups[0] || gy > maxGroups[1] || gz > maxGroups[2])
        throw DeviceFailure("dispatch of " + std::to_string(gx) + "x" + std::to_string(gy) + "x" + std::to_string(gz)
            + " workgroups exceeds the device limit");
    const VkDescriptorPoolSize size { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kernel.bindings };
    auto dpci = makeInfo<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
    dpci.maxSets = 1;
    dpci.poolSizeCount = 1;
    dpci.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    AS_VK_CHECK(vkCreateDescriptorPool(dev, &dpci, nullptr, &pool));
    m_pools.push_back(pool);
    auto dsai = makeInfo<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
    dsai.descriptorPool = pool;
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &kernel.setLayout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    AS_VK_CHECK(vkAllocateDescriptorSets(dev, &dsai, &set));

    std::vector<VkDescriptorBufferInfo> infos(buffers.size());
    std::vector<VkWriteDescriptorSet> writes(buffers.size());
    for (size_t i = 0; i < buffers.size(); ++i) {
        infos[i] = { buffers[i]->buffer, 0, VK_WHOLE_SIZE };
        writes[i] = makeInfo<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
        writes[i].dstSet = set;
        writes[i].dstBinding = static_cast<uint32_t>(i);
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);

    // Uploads and earlier dispatches must be visible to this one.
    auto barrier = makeInfo<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(m_cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
    vkCmdBindPipeline(m_cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline);
    vkCmdBindDescriptorSets(m_cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.layout, 0, 1, &set, 0, nullptr);
    if (kernel.pushBytes)
        vkCmdPushConstants(m_cmd, kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, kernel.pushBytes, push);
    vkCmdDispatch(m_cmd, gx, gy, gz);
    m_dispatched = true;
}

void Job::run()
{
    auto barrier = makeInfo<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(m_cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
        VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
    bool copies = false;
    for (auto& b : m_buffers)
        if (b->readBack && b->staging && b->bytes) {
            const VkBufferCopy region { 0, 0, b->bytes };
            vkCmdCopyBuffer(m_cmd, b->buffer, b->staging, 1, &region);
            copies = true;
        }
    if (copies) {
        barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(m_cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0,
            nullptr, 0, nullptr);
    }
    AS_VK_CHECK(vkEndCommandBuffer(m_cmd));
    auto si = makeInfo<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers = &m_cmd;
    AS_VK_CHECK(vkQueueSubmit(m_context.queue(), 1, &si, m_fence));
    AS_VK_CHECK(vkWaitForFences(m_context.device(), 1, &m_fence, VK_TRUE, kWaitNanoseconds));
}

void Job::read(const Buffer& b, void* dst, size_t bytes) const
{
    if (bytes)
        std::memcpy(dst, b.mapped ? b.mapped : b.stagingMapped, std::min(bytes, b.bytes));
}

} // namespace attn::vk
