// SPDX-License-Identifier: MIT
#include "intervention/input_edits.h"

#include "core/error.h"
#include "intervention/list_syntax.h"

#include <algorithm>
#include <set>

namespace attn {

std::vector<int64_t> parseKeyPositions(const std::string& text, int64_t limit)
{
    std::set<int64_t> positions;
    const std::string context = "key positions \"" + text + "\"";
    forEachCommaItem(text, [&](std::string_view item) {
        const size_t colon = item.find(':');
        const int64_t first = parseIndex(item.substr(0, colon), context, "a position");
        const int64_t end
            = colon == std::string_view::npos ? first + 1 : parseIndex(item.substr(colon + 1), context, "a position");
        if (end <= first) throw Error(context + ": the range " + std::string(item) + " is empty");
        if (end > limit)
            throw Error(context + ": " + std::string(item) + " reaches past the input's " + std::to_string(limit)
                + " positions");
        for (int64_t p = first; p < end; ++p)
            positions.insert(p);
    });
    return { positions.begin(), positions.end() };
}

std::vector<int64_t> substituteTokens(
    std::vector<int64_t> ids, const std::vector<TokenSubstitution>& substitutions, int64_t vocab)
{
    std::set<int64_t> seen;
    for (const TokenSubstitution& s : substitutions) {
        if (s.position < 0 || s.position >= static_cast<int64_t>(ids.size()))
            throw Error("token substitution: position " + std::to_string(s.position) + " is outside the input's "
                + std::to_string(ids.size()) + " tokens");
        if (s.token < 0 || s.token >= vocab)
            throw Error("token substitution: token " + std::to_string(s.token) + " is outside the vocabulary of "
                + std::to_string(vocab));
        if (!seen.insert(s.position).second)
            throw Error("token substitution: position " + std::to_string(s.position) + " is given twice");
        ids[static_cast<size_t>(s.position)] = s.token;
    }
    return ids;
}

} // namespace attn
