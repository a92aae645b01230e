// SPDX-License-Identifier: MIT
#include "vulkan/vk_job.h"

#include <cstring>

namespace attn::vk {

namespace {

// A generous bound: a busy software device may take long, a hung one must not hang the app.
constexpr uint64_t kWaitNanoseconds = 600ull * 1000 * 1000 * 1000;
// Descriptor sets per pool; a job grows by whole pools.
constexpr uint32_t kSetsPerPool = 64;
constexpr uint32_t kMaxBindings = 8;

} // namespace

Job::Job(Context& context, BufferPool& pool)
    : m_context(context)
    , m_pool(pool)
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
    // A failed submit may leave work queued; wait so nothing is recycled while in use.
    vkQueueWaitIdle(m_context.queue());
    for (auto pool : m_pools)
        vkDestroyDescriptorPool(dev, pool, nullptr);
    vkDestroyFence(dev, m_fence, nullptr);
    vkFreeCommandBuffers(dev, m_context.commandPool(), 1, &m_cmd);
}

void Job::barrier()
{
    if (!m_recorded) {
        m_recorded = true;
        return;
    }
    auto b = makeInfo<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT
        | VK_ACCESS_SHADER_WRITE_BIT;
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    vkCmdPipelineBarrier(m_cmd, stages, stages, 0, 1, &b, 0, nullptr, 0, nullptr);
}

BufferRef Job::scratch(size_t bytes)
{
    BufferRef b = m_pool.acquire(bytes, Memory::Device);
    m_keep.push_back(b);
    return b;
}

BufferRef Job::upload(const void* data, size_t bytes)
{
    BufferRef b = scratch(bytes);
    uploadInto(b, 0, data, bytes);
    return b;
}

void Job::uploadInto(const BufferRef& dst, size_t byteOffset, const void* data, size_t bytes)
{
    m_keep.push_back(dst);
    if (!bytes)
        return;
    BufferRef staging = m_pool.acquire(bytes, Memory::Upload);
    std::memcpy(staging->mapped, data, bytes);
    m_keep.push_back(staging);
    copy(staging, dst, { VkBufferCopy { 0, byteOffset, bytes } });
    m_uploaded += bytes;
}

void Job::copy(const BufferRef& src, const BufferRef& dst, const std::vector<VkBufferCopy>& regions)
{
    m_keep.push_back(src);
    m_keep.push_back(dst);
    if (regions.empty())
        return;
    barrier();
    vkCmdCopyBuffer(m_cmd, src->buffer, dst->buffer, static_cast<uint32_t>(regions.size()), regions.data());
}

void Job::download(const BufferRef& src, size_t bytes, void* dst)
{
    if (!bytes)
        return;
    BufferRef staging = m_pool.acquire(bytes, Memory::Readback);
    copy(src, staging, { VkBufferCopy { 0, 0, bytes } });
    m_downloads.push_back({ std::move(staging), bytes, dst });
    m_downloaded += bytes;
}

VkDescriptorSet Job::descriptorSet(const Kernel& kernel)
{
    const VkDevice dev = m_context.device();
    if (m_setsLeft == 0) {
        const VkDescriptorPoolSize size { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * kMaxBindings };
        auto dpci = makeInfo<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
        dpci.maxSets = kSetsPerPool;
        dpci.poolSizeCount = 1;
        dpci.pPoolSizes = &size;
        VkDescriptorPool pool = VK_NULL_HANDLE;
        AS_VK_CHECK(vkCreateDescriptorPool(dev, &dpci, nullptr, &pool));
        m_pools.push_back(pool);
        m_setsLeft = kSetsPerPool;
    }
    auto dsai = makeInfo<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
    dsai.descriptorPool = m_pools.back();
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &kernel.setLayout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    AS_VK_CHECK(vkAllocateDescriptorSets(dev, &dsai, &set));
    --m_setsLeft;
    return set;
}

void Job::dispatch(
    const Kernel& kernel, const std::vector<BufferRef>& buffers, const void* push, uint32_t gx, uint32_t gy, uint32_t gz)
{
    const auto& maxGroups = m_context.limits().maxComputeWorkGroupCount;
    if (gx > maxGroups[0] || gy > maxGroups[1] || gz > maxGroups[2])
        throw DeviceFailure("dispatch of " + std::to_string(gx) + "x" + std::to_string(gy) + "x" + std::to_string(gz)
            + " workgroups exceeds the device limit");
    if (buffers.size() != kernel.bindings || buffers.size() > kMaxBindings)
        throw DeviceFailure("kernel binding count mismatch");
    const VkDescriptorSet set = descriptorSet(kernel);
    std::vector<VkDescriptorBufferInfo> infos(buffers.size());
    std::vector<VkWriteDescriptorSet> writes(buffers.size());
    for (size_t i = 0; i < buffers.size(); ++i) {
        m_keep.push_back(buffers[i]);
        infos[i] = { buffers[i]->buffer, 0, VK_WHOLE_SIZE };
        writes[i] = makeInfo<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
        writes[i].dstSet = set;
        writes[i].dstBinding = static_cast<uint32_t>(i);
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(m_context.device(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
    barrier();
    vkCmdBindPipeline(m_cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.pipeline);
    vkCmdBindDescriptorSets(m_cmd, VK_PIPELINE_BIND_POINT_COMPUTE, kernel.layout, 0, 1, &set, 0, nullptr);
    if (kernel.pushBytes)
        vkCmdPushConstants(m_cmd, kernel.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, kernel.pushBytes, push);
    vkCmdDispatch(m_cmd, gx, gy, gz);
}

void Job::run()
{
    if (!m_downloads.empty()) {
        auto b = makeInfo<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(m_cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr, 0,
            nullptr);
    }
    AS_VK_CHECK(vkEndCommandBuffer(m_cmd));
    auto si = makeInfo<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers = &m_cmd;
    AS_VK_CHECK(vkQueueSubmit(m_context.queue(), 1, &si, m_fence));
    AS_VK_CHECK(vkWaitForFences(m_context.device(), 1, &m_fence, VK_TRUE, kWaitNanoseconds));
    for (const Download& d : m_downloads)
        std::memcpy(d.dst, d.staging->mapped, d.bytes);
}

} // namespace attn::vk
