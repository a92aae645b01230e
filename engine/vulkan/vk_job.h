// SPDX-License-Identifier: MIT
#pragma once
// One submission to the device: uploads, copies, dispatches and read-backs recorded in order into one command buffer,
// then one submit and one wait. Buffers come from the pool and stay referenced until the job ends.
#include "vulkan/vk_buffer.h"
#include "vulkan/vk_context.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attn::vk {

class Job {
public:
    Job(Context& context, BufferPool& pool);
    ~Job();
    Job(const Job&) = delete;
    Job& operator=(const Job&) = delete;

    /// A device buffer holding a copy of data[0, bytes).
    BufferRef upload(const void* data, size_t bytes);
    /// Writes data[0, bytes) into dst at byteOffset, ordered after the work recorded so far.
    void uploadInto(const BufferRef& dst, size_t byteOffset, const void* data, size_t bytes);
    /// A device buffer of at least `bytes` for kernels to write (contents undefined).
    BufferRef scratch(size_t bytes);
    /// Device-to-device copies, ordered after the work recorded so far.
    void copy(const BufferRef& src, const BufferRef& dst, const std::vector<VkBufferCopy>& regions);
    /// After run(), dst holds src's first `bytes` as they are at this point of the job.
    void download(const BufferRef& src, size_t bytes, void* dst);

    /// Records one dispatch of `kernel` with buffers bound to 0, 1, ... in order.
    void dispatch(const Kernel& kernel, const std::vector<BufferRef>& buffers, const void* push, uint32_t groupsX,
        uint32_t groupsY = 1, uint32_t groupsZ = 1);
    /// Submits everything, waits and fills the download targets; throws DeviceFailure (device lost, timeout).
    void run();

    uint64_t uploadedBytes() const { return m_uploaded; }
    uint64_t downloadedBytes() const { return m_downloaded; }

private:
    /// Orders the next command after everything recorded before it.
    void barrier();
    VkDescriptorSet descriptorSet(const Kernel& kernel);

    struct Download {
        BufferRef staging;
        size_t bytes;
        void* dst;
    };

    Context& m_context;
    BufferPool& m_pool;
    VkCommandBuffer m_cmd = VK_NULL_HANDLE;
    VkFence m_fence = VK_NULL_HANDLE;
    std::vector<BufferRef> m_keep;
    std::vector<Download> m_downloads;
    std::vector<VkDescriptorPool> m_pools;
    uint32_t m_setsLeft = 0;
    bool m_recorded = false;
    uint64_t m_uploaded = 0;
    uint64_t m_downloaded = 0;
};

} // namespace attn::vk
