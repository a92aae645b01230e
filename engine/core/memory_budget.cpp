// SPDX-License-Identifier: MIT
#include "core/memory_budget.h"

#include "core/error.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace attn {
namespace {

std::string gib(uint64_t bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / double(1ull << 30));
    return text;
}

} // namespace

uint64_t availableMemoryBytes()
{
    uint64_t available = std::numeric_limits<uint64_t>::max();
    if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
        char line[256];
        unsigned long long kb = 0;
        while (std::fgets(line, sizeof line, f))
            if (std::sscanf(line, "MemAvailable: %llu kB", &kb) == 1) {
                available = static_cast<uint64_t>(kb) * 1024;
                break;
            }
        std::fclose(f);
    }
    if (const char* limit = std::getenv("ATTNSCOPE_MEMORY_LIMIT"))
        available = std::min<uint64_t>(available, std::strtoull(limit, nullptr, 10));
    return available;
}

void requireMemory(uint64_t needBytes, const std::string& file, const std::string& what, const std::string& advice)
{
    const uint64_t available = availableMemoryBytes();
    if (needBytes > available)
        throw Error(file,
            "loading " + what + " needs about " + gib(needBytes) + " (" + std::to_string(needBytes)
                + " bytes) but only " + gib(available) + " of memory is available; refusing to start (" + advice + ")");
}

} // namespace attn
