// SPDX-License-Identifier: MIT
#pragma once
// The syntax the intervention options share: comma-separated lists of non-negative indices.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace attn {

/// Calls `item` with each comma-separated piece of `text` in order (an empty text is one empty piece).
void forEachCommaItem(const std::string& text, const std::function<void(std::string_view)>& item);

/// `text` as a non-negative decimal integer; otherwise throws Error "<context>: "<text>" is not <what>".
int64_t parseIndex(std::string_view text, const std::string& context, const std::string& what);

} // namespace attn
