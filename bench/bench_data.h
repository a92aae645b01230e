// SPDX-License-Identifier: MIT
#pragma once
// Where the benchmarks find the shared genuine models: ../shared, or $ATTNSCOPE_SHARED.
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

inline std::string stories260K()
{
    const char* env = std::getenv("ATTNSCOPE_SHARED");
    const std::filesystem::path root = env && *env ? std::filesystem::path(env) : std::filesystem::path(AS_SHARED_DIR);
    const std::filesystem::path p = root / "models/stories260K/stories260K.bin";
    if (!std::filesystem::exists(p))
        throw std::runtime_error("bench data is missing: " + p.string() + " (set ATTNSCOPE_SHARED)");
    return p.string();
}
