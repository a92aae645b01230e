// SPDX-License-Identifier: MIT
#pragma once
// How a caption changes under a head mask, word by word: the words of each caption that the other lacks, by a
// longest common subsequence of their token ids (so one word inserted or dropped marks that word, not every word
// after it).
#include <cstdint>
#include <vector>

namespace attn::ui {

struct CaptionDiff {
    std::vector<bool> removed; ///< per word of the first caption: not in the common subsequence
    std::vector<bool> added; ///< per word of the second caption: not in the common subsequence
    bool same() const;
};

/// The difference from `before` to `after`; among equally long common subsequences the earliest words match.
CaptionDiff diffCaptions(const std::vector<int64_t>& before, const std::vector<int64_t>& after);

} // namespace attn::ui
