// SPDX-License-Identifier: MIT
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace attn {

/// Tokens matched verbatim in the raw text before the model's own algorithm runs, as Hugging Face does for
/// "added tokens" ("<|endoftext|>", "[MASK]"): the longest match at the leftmost position wins, case-sensitively.
/// Files may list tens of thousands of them (GGUF vocabularies, hostile tokenizer.json), so adding, finding and
/// splitting are indexed rather than scanned.
class AddedTokens {
public:
    struct Entry {
        std::string content;
        int64_t id;
        bool special;
    };
    /// A piece of the text: plain text (id -1) or one added token.
    struct Segment {
        size_t begin, end;
        int64_t id;
    };

    /// A second entry with the same content only widens `special`; the first id given for it stays.
    void add(std::string content, int64_t id, bool special);
    bool empty() const { return m_entries.empty(); }
    std::vector<Segment> split(const std::string& text) const;
    /// The first entry added with this id.
    const Entry* find(int64_t id) const;
    const Entry* find(const std::string& content) const;

private:
    std::vector<Entry> m_entries;
    std::map<std::string, size_t, std::less<>> m_byContent; ///< transparent: split() looks up string_views
    std::unordered_map<int64_t, size_t> m_byId;
    /// Distinct content lengths, longest first, for each first byte: split() tries only these at a position.
    std::array<std::vector<size_t>, 256> m_lengthsByFirstByte;
};

} // namespace attn
