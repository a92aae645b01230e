// SPDX-License-Identifier: MIT
#include "fuzz_target.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace attn::fuzz {

std::string scratchDir()
{
    static const std::filesystem::path dir = [] {
        auto d = std::filesystem::temp_directory_path() / ("attnscope-fuzz-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir.string();
}

std::string writeScratch(const std::string& name, const uint8_t* data, size_t size)
{
    const std::filesystem::path path = std::filesystem::path(scratchDir()) / name;
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path.string();
}

} // namespace attn::fuzz
