// SPDX-License-Identifier: MIT
#include "vulkan/vk_context.h"

#include "core/cache_dir.h"
#include "vulkan/vulkan_backend.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

namespace attn {

namespace {

std::atomic<uint64_t> g_validationMessages { 0 };
std::atomic<bool> g_validationActive { false };

const char* resultName(VkResult r)
{
    switch (r) {
#define AS_VK_RESULT(name)                                                                                             \
    case name:                                                                                                         \
        return #name;
        AS_VK_RESULT(VK_NOT_READY)
        AS_VK_RESULT(VK_TIMEOUT)
        AS_VK_RESULT(VK_INCOMPLETE)
        AS_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
        AS_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        AS_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
        AS_VK_RESULT(VK_ERROR_DEVICE_LOST)
        AS_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
        AS_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
        AS_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
        AS_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
        AS_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
        AS_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
        AS_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
        AS_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
        AS_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
        AS_VK_RESULT(VK_ERROR_UNKNOWN)
#undef AS_VK_RESULT
    default:
        return "VkResult";
    }
}

VKAPI_ATTR VkBool32 VKAPI_CALL onDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
    VkDebugUtilsMessageTypeFlagsEXT types, const VkDebugUtilsMessengerCallbackDataEXT* data, void*)
{
    // Loader chatter (GENERAL) is shown but not counted: only the validation layer's findings fail tests.
    const bool counted = (types & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT))
        && severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
    if (counted)
        ++g_validationMessages;
    std::cerr << "vulkan " << (severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning") << ": "
              << (data && data->pMessage ? data->pMessage : "") << "\n";
    return VK_FALSE;
}

bool envFlag(const char* name)
{
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

bool hasLayer(const char* name)
{
    uint32_t n = 0;
    if (vkEnumerateInstanceLayerProperties(&n, nullptr) != VK_SUCCESS)
        return false;
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    return std::any_of(layers.begin(), layers.end(), [&](const auto& l) { return std::strcmp(l.layerName, name) == 0; });
}

int deviceRank(VkPhysicalDeviceType type)
{
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return 3;
    default:
        return 4;
    }
}

std::optional<uint32_t> computeQueueFamily(VkPhysicalDevice device)
{
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(device, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(device, &n, families.data());
    // Prefer a compute-only family (an async compute queue on GPUs), else any family with compute.
    std::optional<uint32_t> any;
    for (uint32_t i = 0; i < n; ++i) {
        if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || families[i].queueCount == 0)
            continue;
        if (!(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT))
            return i;
        if (!any)
            any = i;
    }
    return any;
}

std::string versionString(uint32_t v)
{
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "."
        + std::to_string(VK_API_VERSION_PATCH(v));
}

} // namespace

bool vulkanValidationActive() { return g_validationActive; }
uint64_t vulkanValidationMessages() { return g_validationMessages; }

namespace vk {

void throwFailure(VkResult result, const char* call, const char* file, int line)
{
    const std::string where = std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
    throw DeviceFailure(std::string(call) + " failed: " + resultName(result) + " (" + where + ")",
        result == VK_ERROR_DEVICE_LOST);
}

std::shared_ptr<Instance> Instance::get()
{
    static std::mutex mutex;
    static std::weak_ptr<Instance> shared;
    const std::lock_guard lock(mutex);
    if (auto alive = shared.lock())
        return alive;

    std::shared_ptr<Instance> inst(new Instance());
    auto app = makeInfo<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
    app.pApplicationName = "attnscope";
    app.pEngineName = "attnscope";
    app.apiVersion = VK_API_VERSION_1_1;
    auto ci = makeInfo<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
    ci.pApplicationInfo = &app;

    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    auto mci = makeInfo<VkDebugUtilsMessengerCreateInfoEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT);
    mci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT
        | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mci.pfnUserCallback = onDebugMessage;
    bool validate = envFlag("AS_VULKAN_VALIDATE");
    if (validate && !hasLayer(layer)) {
        std::cerr << "attnscope: AS_VULKAN_VALIDATE=1 but " << layer
                  << " is not installed (package vulkan-validationlayers): running WITHOUT validation\n";
        validate = false;
    }
    if (validate) {
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = &layer;
        ci.enabledExtensionCount = 1;
        ci.ppEnabledExtensionNames = &extension;
        ci.pNext = &mci; // also reports problems of vkCreateInstance/vkDestroyInstance themselves
    }
    const VkResult r = vkCreateInstance(&ci, nullptr, &inst->m_instance);
    if (r != VK_SUCCESS)
        throw DeviceFailure(std::string("no usable Vulkan driver (vkCreateInstance: ") + resultName(r) + ")");
    if (validate) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(inst->m_instance, "vkCreateDebugUtilsMessengerEXT"));
        if (create && create(inst->m_instance, &mci, nullptr, &inst->m_messenger) == VK_SUCCESS)
            g_validationActive = true;
    }
    shared = inst;
    return inst;
}

Instance::~Instance()
{
    if (m_messenger) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(m_instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy)
            destroy(m_instance, m_messenger, nullptr);
    }
    if (m_instance)
        vkDestroyInstance(m_instance, nullptr);
}

std::vector<VkPhysicalDevice> Instance::computeDevices() const
{
    uint32_t n = 0;
    AS_VK_CHECK(vkEnumeratePhysicalDevices(m_instance, &n, nullptr));
    std::vector<VkPhysicalDevice> all(n);
    if (n)
        AS_VK_CHECK(vkEnumeratePhysicalDevices(m_instance, &n, all.data()));
    std::vector<VkPhysicalDevice> out;
    std::copy_if(all.begin(), all.end(), std::back_inserter(out), [](auto d) { return computeQueueFamily(d).has_value(); });
    return out;
}

DeviceInfo describeDevice(VkPhysicalDevice device)
{
    auto driver = makeInfo<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
    auto props = makeInfo<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    VkPhysicalDeviceProperties basic {};
    vkGetPhysicalDeviceProperties(device, &basic);
    // Driver name/version needs Vulkan 1.2 on the device side.
    const bool hasDriverProps = basic.apiVersion >= VK_API_VERSION_1_2;
    if (hasDriverProps)
        props.pNext = &driver;
    vkGetPhysicalDeviceProperties2(device, &props);
    const auto& p = props.properties;
    DeviceInfo info;
    info.backend = "vulkan";
    info.name = p.deviceName;
    switch (p.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        info.type = "discrete-gpu";
        break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        info.type = "integrated-gpu";
        break;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        info.type = "virtual-gpu";
        break;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        info.type = "software";
        break;
    default:
        info.type = "other";
    }
    info.vendorId = p.vendorID;
    info.deviceId = p.deviceID;
    info.apiVersion = versionString(p.apiVersion);
    if (hasDriverProps)
        info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
    VkPhysicalDeviceMemoryProperties mem {};
    vkGetPhysicalDeviceMemoryProperties(device, &mem);
    for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
        if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
            info.memoryBytes = std::max<uint64_t>(info.memoryBytes, mem.memoryHeaps[i].size);
    return info;
}

Context::Context()
    : m_instance(Instance::get())
{
    auto devices = m_instance->computeDevices();
    if (devices.empty())
        throw DeviceFailure("the Vulkan driver reports no device with a compute queue");
    std::stable_sort(devices.begin(), devices.end(), [](auto a, auto b) {
        VkPhysicalDeviceProperties pa {}, pb {};
        vkGetPhysicalDeviceProperties(a, &pa);
        vkGetPhysicalDeviceProperties(b, &pb);
        return deviceRank(pa.deviceType) < deviceRank(pb.deviceType);
    });
    m_physical = devices.front();
    m_info = describeDevice(m_physical);
    m_queueFamily = *computeQueueFamily(m_physical);
    VkPhysicalDeviceProperties props {};
    vkGetPhysicalDeviceProperties(m_physical, &props);
    m_limits = props.limits;
    // Tests shrink the storage buffer limit to reach the code paths of devices with small ones (weights in blocks).
    if (const char* cap = std::getenv("AS_VULKAN_MAX_BUFFER_BYTES"); cap && std::atoll(cap) > 0)
        m_limits.maxStorageBufferRange
            = std::min<uint64_t>(m_limits.maxStorageBufferRange, static_cast<uint64_t>(std::atoll(cap)));
    vkGetPhysicalDeviceMemoryProperties(m_physical, &m_memory);

    const float priority = 1.0f;
    auto qci = makeInfo<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
    qci.queueFamilyIndex = m_queueFamily;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    auto dci = makeInfo<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    AS_VK_CHECK(vkCreateDevice(m_physical, &dci, nullptr, &m_device));
    vkGetDeviceQueue(m_device, m_queueFamily, 0, &m_queue);

    auto pci = makeInfo<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = m_queueFamily;
    const VkResult r = vkCreateCommandPool(m_device, &pci, nullptr, &m_commandPool);
    if (r != VK_SUCCESS) {
        vkDestroyDevice(m_device, nullptr);
        throwFailure(r, "vkCreateCommandPool", __FILE__, __LINE__);
    }
    loadPipelineCache();
}

Context::~Context()
{
    if (!m_device)
        return;
    vkDeviceWaitIdle(m_device);
    savePipelineCache();
    for (auto& [name, k] : m_kernels) {
        vkDestroyPipeline(m_device, k.pipeline, nullptr);
        vkDestroyPipelineLayout(m_device, k.layout, nullptr);
        vkDestroyDescriptorSetLayout(m_device, k.setLayout, nullptr);
        vkDestroyShaderModule(m_device, k.module, nullptr);
    }
    if (m_pipelineCache)
        vkDestroyPipelineCache(m_device, m_pipelineCache, nullptr);
    vkDestroyCommandPool(m_device, m_commandPool, nullptr);
    vkDestroyDevice(m_device, nullptr);
}

uint32_t Context::memoryType(uint32_t typeBits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const
{
    for (const VkMemoryPropertyFlags want : { required | preferred, required })
        for (uint32_t i = 0; i < m_memory.memoryTypeCount; ++i)
            if ((typeBits & (1u << i)) && (m_memory.memoryTypes[i].propertyFlags & want) == want)
                return i;
    throw DeviceFailure("no Vulkan memory type with the required properties");
}

std::string Context::pipelineCachePath() const
{
    const std::filesystem::path dir = cacheDirectory();
    if (dir.empty()) return {};
    char file[64];
    std::snprintf(file, sizeof file, "pipeline-%04x-%04x.bin", m_info.vendorId, m_info.deviceId);
    return (dir / file).string();
}

void Context::loadPipelineCache()
{
    std::vector<char> data;
    if (const std::string path = pipelineCachePath(); !path.empty()) {
        std::ifstream in(path, std::ios::binary);
        data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    auto ci = makeInfo<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
    ci.initialDataSize = data.size();
    ci.pInitialData = data.empty() ? nullptr : data.data();
    // The driver ignores a cache from another driver version; a corrupt one is dropped and we start empty.
    if (vkCreatePipelineCache(m_device, &ci, nullptr, &m_pipelineCache) != VK_SUCCESS) {
        ci.initialDataSize = 0;
        ci.pInitialData = nullptr;
        if (vkCreatePipelineCache(m_device, &ci, nullptr, &m_pipelineCache) != VK_SUCCESS)
            m_pipelineCache = VK_NULL_HANDLE; // pipelines are then built without a cache
    }
}

void Context::savePipelineCache() const
{
    // Best effort: a read-only or missing cache directory only costs compile time on the next run.
    const std::string path = pipelineCachePath();
    if (!m_pipelineCache || path.empty() || m_kernels.empty())
        return;
    size_t size = 0;
    if (vkGetPipelineCacheData(m_device, m_pipelineCache, &size, nullptr) != VK_SUCCESS || size == 0)
        return;
    std::vector<char> data(size);
    if (vkGetPipelineCacheData(m_device, m_pipelineCache, &size, data.data()) != VK_SUCCESS)
        return;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out.write(data.data(), static_cast<std::streamsize>(size)))
            return;
    }
    std::filesystem::rename(tmp, path, ec);
}

const Kernel& Context::kernel(const KernelSource& src)
{
    std::string key = src.name;
    for (uint32_t c : src.specConstants) {
        key += '/';
        key += std::to_string(c);
    }
    if (auto it = m_kernels.find(key); it != m_kernels.end())
        return it->second;

    Kernel k;
    k.bindings = src.bindings;
    k.pushBytes = src.pushBytes;
    // Partially built kernels are released on failure so a retry starts clean.
    auto release = [&] {
        if (k.pipeline)
            vkDestroyPipeline(m_device, k.pipeline, nullptr);
        if (k.layout)
            vkDestroyPipelineLayout(m_device, k.layout, nullptr);
        if (k.setLayout)
            vkDestroyDescriptorSetLayout(m_device, k.setLayout, nullptr);
        if (k.module)
            vkDestroyShaderModule(m_device, k.module, nullptr);
    };
    try {
        auto smci = makeInfo<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
        smci.codeSize = src.codeBytes;
        smci.pCode = src.code;
        AS_VK_CHECK(vkCreateShaderModule(m_device, &smci, nullptr, &k.module));

        std::vector<VkDescriptorSetLayoutBinding> bindings(src.bindings);
        for (uint32_t i = 0; i < src.bindings; ++i)
            bindings[i] = { i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr };
        auto dlci = makeInfo<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
        dlci.bindingCount = src.bindings;
        dlci.pBindings = bindings.data();
        AS_VK_CHECK(vkCreateDescriptorSetLayout(m_device, &dlci, nullptr, &k.setLayout));

        const VkPushConstantRange range { VK_SHADER_STAGE_COMPUTE_BIT, 0, src.pushBytes };
        auto plci = makeInfo<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
        plci.setLayoutCount = 1;
        plci.pSetLayouts = &k.setLayout;
        plci.pushConstantRangeCount = src.pushBytes ? 1 : 0;
        plci.pPushConstantRanges = &range;
        AS_VK_CHECK(vkCreatePipelineLayout(m_device, &plci, nullptr, &k.layout));

        std::vector<VkSpecializationMapEntry> entries;
        for (uint32_t i = 0; i < src.specConstants.size(); ++i)
            entries.push_back({ i, i * 4u, 4 });
        VkSpecializationInfo spec { static_cast<uint32_t>(entries.size()), entries.data(), src.specConstants.size() * 4,
            src.specConstants.data() };
        auto cpci = makeInfo<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
        cpci.stage = makeInfo<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
        cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        cpci.stage.module = k.module;
        cpci.stage.pName = "main";
        cpci.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
        cpci.layout = k.layout;
        AS_VK_CHECK(vkCreateComputePipelines(m_device, m_pipelineCache, 1, &cpci, nullptr, &k.pipeline));
    } catch (...) {
        release();
        throw;
    }
    return m_kernels.emplace(key, k).first->second;
}

} // namespace vk
} // namespace attn
