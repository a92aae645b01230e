// SPDX-License-Identifier: MIT
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace attn {

/// Splits UTF-8 text the way GPT-2's regex does, with real Unicode categories:
///   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
/// Returns the byte spans [begin, end) of the pieces, which tile the text.
std::vector<std::pair<size_t, size_t>> gpt2PreTokenize(const std::string& text);

} // namespace attn
