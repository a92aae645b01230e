// SPDX-License-Identifier: MIT
#include "core/cache_dir.h"

#include <cstdlib>

namespace attn {

std::filesystem::path cacheDirectory()
{
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "attnscope";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".cache" / "attnscope";
    return {};
}

} // namespace attn
