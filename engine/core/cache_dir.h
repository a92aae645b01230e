// SPDX-License-Identifier: MIT
#pragma once
#include <filesystem>

namespace attn {

/// Where AttnScope keeps what it can recompute (compiled pipelines, the Vulkan probe): $XDG_CACHE_HOME/attnscope or
/// ~/.cache/attnscope. Empty when neither variable is set; the folder is not created here.
std::filesystem::path cacheDirectory();

} // namespace attn
