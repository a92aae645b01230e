// SPDX-License-Identifier: MIT
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// Tokens matched verbatim in the raw text before the model's own algorithm runs, as Hugging Face does for
/// "added tokens" ("<|endoftext|>", "[MASK]"): the longest match at the leftmost position wins, case-sensitively.
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

    void add(std::string content, int64_t id, bool special);
    bool empty() const { return m_entries.empty(); }
    std::vector<Segment> split(const std::string& text) const;
    const Entry* find(int64_t id) const;
    const Entry* find(const std::string& content) const;

private:
    std::vector<Entry> m_entries;
};

} // namespace attn
