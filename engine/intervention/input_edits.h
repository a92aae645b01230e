// SPDX-License-Identifier: MIT
#pragma once
// Interventions on what the heads read rather than on the heads themselves: key positions hidden from them (KeyMask in
// intervention.h) and input tokens replaced.
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// "P[,P...]" with P a position or a half-open range A:B -> the positions, ascending, each once. Throws Error for bad
/// syntax, an empty range or a position >= `limit` (the input length).
std::vector<int64_t> parseKeyPositions(const std::string& text, int64_t limit);

struct TokenSubstitution {
    int64_t position = 0;
    int64_t token = 0;
};

/// `ids` with each substitution's position holding its token. Throws Error for a position outside `ids`, a token
/// outside [0, vocab) or a position given twice.
std::vector<int64_t> substituteTokens(
    std::vector<int64_t> ids, const std::vector<TokenSubstitution>& substitutions, int64_t vocab);

} // namespace attn
