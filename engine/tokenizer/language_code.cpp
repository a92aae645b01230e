// SPDX-License-Identifier: MIT
#include "tokenizer/language_code.h"

#include <algorithm>

namespace attn {

std::pair<size_t, size_t> nextLanguageCode(const std::string& text, size_t from)
{
    for (size_t open = text.find(">>", from); open != std::string::npos; open = text.find(">>", open + 1)) {
        const size_t lineEnd = std::min(text.find_first_of("\r\n", open + 2), text.size());
        const size_t close = lineEnd >= 2 ? text.rfind("<<", lineEnd - 2) : std::string::npos;
        if (close != std::string::npos && close >= open + 3) return { open, close + 2 };
        // No later ">>" on this line can match either: skip to the next line.
        if (lineEnd == text.size()) break;
        open = lineEnd;
    }
    return { std::string::npos, std::string::npos };
}

} // namespace attn
