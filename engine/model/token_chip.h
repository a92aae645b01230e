// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>
#include <string>

namespace attn {

/// One token as the views show it: in the token chips, on the heatmap axes and in a decode timeline.
struct TokenChip {
    std::string text;
    int64_t id = -1;
    bool special = false;
};

} // namespace attn
