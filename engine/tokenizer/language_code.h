// SPDX-License-Identifier: MIT
#pragma once
#include <cstddef>
#include <string>
#include <utility>

namespace attn {

/// The next match of HF MarianTokenizer's language-code pattern ">>.+<<" (std::regex ECMAScript semantics) in `text`
/// at or after `from`, as [begin, end), or {npos, npos}: the leftmost ">>" that has a "<<" at least one character
/// later on the same line ("." stops at \n and \r), taking the last such "<<" (".+" is greedy). A hand-written scan
/// in linear time: std::regex recurses once per character and overflows the stack on long inputs.
std::pair<size_t, size_t> nextLanguageCode(const std::string& text, size_t from);

} // namespace attn
