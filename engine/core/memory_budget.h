// SPDX-License-Identifier: MIT
#pragma once
// A load that would need more memory than the machine has is refused up front, with the numbers, instead of
// growing until the kernel kills the process.
#include <cstdint>
#include <string>

namespace attn {

/// MemAvailable from /proc/meminfo, in bytes; UINT64_MAX where it cannot be read. ATTNSCOPE_MEMORY_LIMIT (bytes), when
/// set, caps it (for tests and for sharing a machine).
uint64_t availableMemoryBytes();

/// Throws Error("FILE: loading WHAT needs about X GiB ... but only Y GiB is available ...; ADVICE") when needBytes
/// exceeds availableMemoryBytes(). `advice` says what would fit instead (a quantized GGUF).
void requireMemory(uint64_t needBytes, const std::string& file, const std::string& what, const std::string& advice);

} // namespace attn
