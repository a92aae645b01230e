// SPDX-License-Identifier: MIT
#pragma once
// Where a decoder can predict the next token by copying (the induction-copy task of head importance and pruning).
#include <cstdint>
#include <vector>

namespace attn {

/// [i] for each predicted position i = 0 .. n - 2 (predicting tokens[i + 1]): true when the two tokens ending at i
/// occurred earlier, followed by the same token: some 1 <= j < i has tokens[j - 1] = tokens[i - 1], tokens[j] =
/// tokens[i] and tokens[j + 1] = tokens[i + 1]. In a repeated span these are the tokens of the second copy from its
/// third on, and its second too when the token before both copies is the same (":" in "words: gold wind frog lamp ...
/// again: gold wind frog lamp"); an induction head is what predicts them. Empty for fewer than two tokens.
std::vector<bool> copyPositions(const std::vector<int64_t>& tokens);

} // namespace attn
