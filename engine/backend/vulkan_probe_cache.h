// SPDX-License-Identifier: MIT
#pragma once
// `--backend auto` remembers a probe that found only a software Vulkan device (lavapipe, SwiftShader), so that such a
// machine does not load the drivers again on every start (~55 ms and ~55 MB for lavapipe, which brings LLVM) only to
// run on the CPU. Only that outcome is remembered: a machine without drivers probes in microseconds, and a failed
// probe is never remembered, so a GPU whose driver failed once is tried again on the next start.
#include <optional>
#include <string>

namespace attn {

/// A digest of everything that decides which Vulkan devices exist: the loader's driver variables, the ICD manifests
/// in the loader's search folders (name, size, modification time), the GPU device nodes and whether this build has
/// Vulkan. A new driver, an updated one or a GPU that appears changes it, and the probe runs again.
std::string vulkanSetupFingerprint();

/// The notice of a remembered software-only probe for `fingerprint`, or nothing (no cache folder, no file, another
/// set-up, a damaged file).
std::optional<std::string> rememberedSoftwareOnlyProbe(const std::string& fingerprint);
/// Remembers a software-only probe; failing to write (read-only home, no cache folder) only costs the next start a
/// probe.
void rememberSoftwareOnlyProbe(const std::string& fingerprint, const std::string& notice);

} // namespace attn
