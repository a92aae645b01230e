// SPDX-License-Identifier: MIT
#pragma once
// Is gold sentence N the pair that is shown? A gold file holds only links, so a wrong sentence number scores the
// alignment against another sentence's links, silently. Two checks catch it: links that name words the shown pair
// does not have, and, when the gold file has its corpus beside it (heldout.align next to heldout.en / heldout.fr),
// the corpus line that the shown source really is.
#include "align/alignment.h"

#include <optional>
#include <string>
#include <vector>

namespace attn {

struct GoldMismatch {
    std::string message; ///< what is wrong, for people
    std::optional<int64_t> matchingSentence; ///< the corpus line whose source is the shown source, when found
};

/// Nothing when gold sentence `sentence` of `goldPath` fits the shown source and target words. While a translation
/// is still being decoded (`targetComplete` false) links past its last word are expected and not counted.
std::optional<GoldMismatch> checkGoldSentence(const std::string& goldPath, int64_t sentence, const GoldAlignment& gold,
    const std::vector<std::string>& sourceWords, const std::vector<std::string>& targetWords, bool targetComplete = true);

} // namespace attn
