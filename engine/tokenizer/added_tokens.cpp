// SPDX-License-Identifier: MIT
#include "tokenizer/added_tokens.h"

namespace attn {

void AddedTokens::add(std::string content, int64_t id, bool special)
{
    if (content.empty()) return;
    for (Entry& e : m_entries) {
        if (e.content == content) {
            e.special = e.special || special;
            return;
        }
    }
    m_entries.push_back({ std::move(content), id, special });
}

std::vector<AddedTokens::Segment> AddedTokens::split(const std::string& text) const
{
    std::vector<Segment> out;
    size_t plainBegin = 0;
    size_t i = 0;
    while (i < text.size()) {
        const Entry* best = nullptr;
        for (const Entry& e : m_entries)
            if (text.compare(i, e.content.size(), e.content) == 0 && (!best || e.content.size() > best->content.size()))
                best = &e;
        if (!best) {
            ++i;
            continue;
        }
        if (plainBegin < i) out.push_back({ plainBegin, i, -1 });
        out.push_back({ i, i + best->content.size(), best->id });
        i += best->content.size();
        plainBegin = i;
    }
    if (plainBegin < text.size()) out.push_back({ plainBegin, text.size(), -1 });
    return out;
}

const AddedTokens::Entry* AddedTokens::find(int64_t id) const
{
    for (const Entry& e : m_entries)
        if (e.id == id) return &e;
    return nullptr;
}

const AddedTokens::Entry* AddedTokens::find(const std::string& content) const
{
    for (const Entry& e : m_entries)
        if (e.content == content) return &e;
    return nullptr;
}

} // namespace attn
