// SPDX-License-Identifier: MIT
#include "tokenizer/added_tokens.h"

#include <algorithm>
#include <string_view>

namespace attn {

void AddedTokens::add(std::string content, int64_t id, bool special)
{
    if (content.empty()) return;
    if (const auto it = m_byContent.find(content); it != m_byContent.end()) {
        Entry& e = m_entries[it->second];
        e.special = e.special || special;
        return;
    }
    std::vector<size_t>& lengths = m_lengthsByFirstByte[static_cast<unsigned char>(content[0])];
    const auto at = std::lower_bound(lengths.begin(), lengths.end(), content.size(), std::greater<>());
    if (at == lengths.end() || *at != content.size()) lengths.insert(at, content.size());
    const size_t index = m_entries.size();
    m_byContent.emplace(content, index);
    m_byId.emplace(id, index);
    m_entries.push_back({ std::move(content), id, special });
}

std::vector<AddedTokens::Segment> AddedTokens::split(const std::string& text) const
{
    std::vector<Segment> out;
    if (m_entries.empty()) {
        if (!text.empty()) out.push_back({ 0, text.size(), -1 });
        return out;
    }
    const std::string_view view(text);
    size_t plainBegin = 0;
    size_t i = 0;
    while (i < text.size()) {
        const Entry* best = nullptr;
        for (const size_t length : m_lengthsByFirstByte[static_cast<unsigned char>(text[i])]) {
            if (length > text.size() - i) continue;
            if (const auto it = m_byContent.find(view.substr(i, length)); it != m_byContent.end()) {
                best = &m_entries[it->second]; // lengths are tried longest first
                break;
            }
        }
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
    const auto it = m_byId.find(id);
    return it == m_byId.end() ? nullptr : &m_entries[it->second];
}

const AddedTokens::Entry* AddedTokens::find(const std::string& content) const
{
    const auto it = m_byContent.find(content);
    return it == m_byContent.end() ? nullptr : &m_entries[it->second];
}

} // namespace attn
