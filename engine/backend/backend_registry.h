// SPDX-License-Identifier: MIT
#pragma once
// Choosing a backend: `--backend auto|cpu|vulkan` on the CLI, the device menu in the UI.
#include "backend/backend.h"
#include "backend/fallback_backend.h"
#include "core/error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attn {

enum class BackendChoice { Auto, Cpu, Vulkan };

/// "auto", "cpu" or "vulkan"; throws Error naming the accepted values otherwise.
BackendChoice parseBackendChoice(const std::string& text);
const char* backendChoiceName(BackendChoice choice);

struct BackendSelection {
    std::shared_ptr<Backend> backend; ///< Vulkan (with per-request CPU fallback) or the CPU
    std::string notice; ///< e.g. "no Vulkan device (...): running on the CPU"; empty when nothing to say
};

/// Auto takes a Vulkan GPU when one exists and otherwise runs on the CPU with a notice (also when the only device is a
/// software one such as lavapipe, which is slower than the CPU path); Vulkan without a device is a
/// failure with a plain message; Cpu always succeeds. Runtime device failures later fall back per request (`notice`).
Result<BackendSelection> createBackend(BackendChoice choice, NoticeSink notice = printNotice);

/// What a backend runs on, for people: "vulkan: NVIDIA H200" or "cpu: CPU (16 threads)".
std::string describeBackend(const Backend& backend);

struct DeviceList {
    std::vector<DeviceInfo> devices; ///< the CPU first, then every Vulkan device
    std::string vulkanProblem; ///< why no Vulkan device is listed (no loader/driver, build without Vulkan), or empty
};
DeviceList listDevices();

} // namespace attn
