// SPDX-License-Identifier: MIT
#include "analysis/copy_positions.h"

#include <cstddef>

namespace attn {

std::vector<bool> copyPositions(const std::vector<int64_t>& tokens)
{
    const size_t n = tokens.size();
    if (n < 2) return {};
    std::vector<bool> copy(n - 1, false);
    // Quadratic in the input (a 2,048-token input: 2M comparisons, against a forward pass of the model per use).
    for (size_t i = 1; i + 1 < n; ++i)
        for (size_t j = 1; j < i && !copy[i]; ++j)
            copy[i] = tokens[j - 1] == tokens[i - 1] && tokens[j] == tokens[i] && tokens[j + 1] == tokens[i + 1];
    return copy;
}

} // namespace attn
