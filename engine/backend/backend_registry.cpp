// SPDX-License-Identifier: MIT
#include "backend/backend_registry.h"

#include "backend/cpu_backend.h"
#include "backend/vulkan_probe_cache.h"
#if AS_HAVE_VULKAN
#include "vulkan/vulkan_backend.h"
#endif

namespace attn {

BackendChoice parseBackendChoice(const std::string& text)
{
    if (text == "auto")
        return BackendChoice::Auto;
    if (text == "cpu")
        return BackendChoice::Cpu;
    if (text == "vulkan")
        return BackendChoice::Vulkan;
    throw Error("unknown backend '" + text + "' (expected auto, cpu or vulkan)");
}

const char* backendChoiceName(BackendChoice choice)
{
    switch (choice) {
    case BackendChoice::Auto:
        return "auto";
    case BackendChoice::Cpu:
        return "cpu";
    case BackendChoice::Vulkan:
        return "vulkan";
    }
    return "auto";
}

namespace {

/// The Vulkan backend, or the reason there is none.
std::unique_ptr<Backend> tryVulkan(std::string& why)
{
#if AS_HAVE_VULKAN
    try {
        return createVulkanBackend();
    } catch (const DeviceFailure& e) {
        why = e.what();
    }
#else
    why = "this build has no Vulkan support";
#endif
    return nullptr;
}

} // namespace

Result<BackendSelection> createBackend(BackendChoice choice, NoticeSink notice)
{
    BackendSelection sel;
    if (choice == BackendChoice::Cpu) {
        sel.backend = std::make_shared<CpuBackend>();
        return sel;
    }
    // Auto on a set-up already probed without a usable device runs on the CPU without loading any Vulkan driver.
    const std::string fingerprint = choice == BackendChoice::Auto ? vulkanSetupFingerprint() : std::string();
    if (choice == BackendChoice::Auto)
        if (const auto notice = rememberedSoftwareOnlyProbe(fingerprint)) {
            sel.backend = std::make_shared<CpuBackend>();
            sel.notice = *notice + " [remembered from an earlier start]";
            return sel;
        }
    std::string why;
    auto vulkan = tryVulkan(why);
    // A software device (lavapipe, SwiftShader) runs the shaders on the CPU cores, far slower than the CPU path
    // (bench/README.md): auto leaves it to an explicit choice.
    if (vulkan && choice == BackendChoice::Auto && vulkan->device().type == "software") {
        sel.backend = std::make_shared<CpuBackend>();
        sel.notice = "only a software Vulkan device (" + vulkan->device().name
            + "), slower than the CPU: running on the CPU (choose vulkan to use it anyway)";
        rememberSoftwareOnlyProbe(fingerprint, sel.notice);
        return sel;
    }
    if (!vulkan) {
        if (choice == BackendChoice::Vulkan)
            return Result<BackendSelection>::failure("vulkan backend unavailable: " + why);
        sel.backend = std::make_shared<CpuBackend>();
        sel.notice = "no Vulkan device (" + why + "): running on the CPU";
        return sel;
    }
    sel.backend = std::make_shared<FallbackBackend>(std::move(vulkan), std::make_unique<CpuBackend>(), std::move(notice));
    return sel;
}

std::string describeBackend(const Backend& backend) { return backend.name() + ": " + backend.device().name; }

DeviceList listDevices()
{
    DeviceList list;
    list.devices.push_back(CpuBackend().device());
#if AS_HAVE_VULKAN
    try {
        for (auto& d : vulkanDevices())
            list.devices.push_back(std::move(d));
        if (list.devices.size() == 1)
            list.vulkanProblem = "the Vulkan loader found no device with a compute queue";
    } catch (const DeviceFailure& e) {
        list.vulkanProblem = e.what();
    }
#else
    list.vulkanProblem = "this build has no Vulkan support";
#endif
    return list;
}

} // namespace attn
