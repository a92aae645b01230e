// SPDX-License-Identifier: MIT
#include "intervention/list_syntax.h"

#include "core/error.h"

#include <algorithm>
#include <charconv>

namespace attn {

void forEachCommaItem(const std::string& text, const std::function<void(std::string_view)>& item)
{
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = std::min(text.find(',', start), text.size());
        item(std::string_view(text).substr(start, comma - start));
        start = comma + 1;
    }
}

int64_t parseIndex(std::string_view text, const std::string& context, const std::string& what)
{
    int64_t value = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < 0)
        throw Error(context + ": \"" + std::string(text) + "\" is not " + what);
    return value;
}

} // namespace attn
