// SPDX-License-Identifier: MIT
#pragma once
// One Vulkan device: instance (with optional validation), queue, lazily built compute kernels and a pipeline cache
// that persists across runs. Private to engine/vulkan.
#include "backend/backend.h"

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace attn::vk {

/// Throws DeviceFailure "CALL failed: VK_ERROR_... (file:line)"; device loss is marked as permanent.
[[noreturn]] void throwFailure(VkResult result, const char* call, const char* file, int line);

#define AS_VK_CHECK(call)                                                                                              \
    do {                                                                                                               \
        const VkResult asVkResult = (call);                                                                            \
        if (asVkResult != VK_SUCCESS)                                                                                  \
            ::attn::vk::throwFailure(asVkResult, #call, __FILE__, __LINE__);                                           \
    } while (0)

/// A zeroed Vulkan struct with its sType set.
template <class T>
T makeInfo(VkStructureType type)
{
    T info {};
    info.sType = type;
    return info;
}

/// The Vulkan instance, shared by the contexts and device listing of a process.
class Instance {
public:
    /// Throws DeviceFailure when no loader/driver is usable.
    static std::shared_ptr<Instance> get();
    ~Instance();
    VkInstance handle() const { return m_instance; }
    /// Devices with at least one compute queue.
    std::vector<VkPhysicalDevice> computeDevices() const;
    bool validationActive() const { return m_messenger != VK_NULL_HANDLE; }

private:
    Instance() = default;
    VkInstance m_instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT m_messenger = VK_NULL_HANDLE;
};

DeviceInfo describeDevice(VkPhysicalDevice device);

/// A compute shader pipeline with `bindings` storage buffers and a push-constant block.
struct Kernel {
    VkShaderModule module = VK_NULL_HANDLE;
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    uint32_t bindings = 0;
    uint32_t pushBytes = 0;
};

/// What a kernel is built from: embedded SPIR-V and its specialization constants (ids 0, 1, ...).
struct KernelSource {
    const char* name;
    const uint32_t* code;
    size_t codeBytes;
    uint32_t bindings;
    uint32_t pushBytes;
    std::vector<uint32_t> specConstants;
};

class Context {
public:
    Context(); ///< the best device; throws DeviceFailure
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    const DeviceInfo& info() const { return m_info; }
    VkDevice device() const { return m_device; }
    VkQueue queue() const { return m_queue; }
    VkCommandPool commandPool() const { return m_commandPool; }
    const VkPhysicalDeviceLimits& limits() const { return m_limits; }
    /// A memory type index with all `required` flags (and `preferred` ones when possible); throws DeviceFailure.
    uint32_t memoryType(uint32_t typeBits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const;
    /// The pipeline for `source`, built on first use.
    const Kernel& kernel(const KernelSource& source);
    /// Serializes submissions: the backend may be called from more than one thread.
    std::mutex& mutex() const { return m_mutex; }

private:
    void loadPipelineCache();
    void savePipelineCache() const;
    std::string pipelineCachePath() const;

    std::shared_ptr<Instance> m_instance;
    VkPhysicalDevice m_physical = VK_NULL_HANDLE;
    VkDevice m_device = VK_NULL_HANDLE;
    VkQueue m_queue = VK_NULL_HANDLE;
    uint32_t m_queueFamily = 0;
    VkCommandPool m_commandPool = VK_NULL_HANDLE;
    VkPipelineCache m_pipelineCache = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties m_memory {};
    VkPhysicalDeviceLimits m_limits {};
    DeviceInfo m_info;
    std::map<std::string, Kernel> m_kernels;
    mutable std::mutex m_mutex;
};

} // namespace attn::vk
