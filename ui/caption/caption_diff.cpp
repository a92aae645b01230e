// SPDX-License-Identifier: MIT
#include "caption/caption_diff.h"

#include <algorithm>

namespace attn::ui {

bool CaptionDiff::same() const
{
    return std::none_of(removed.begin(), removed.end(), [](bool b) { return b; })
        && std::none_of(added.begin(), added.end(), [](bool b) { return b; });
}

CaptionDiff diffCaptions(const std::vector<int64_t>& before, const std::vector<int64_t>& after)
{
    const size_t n = before.size(), m = after.size();
    // lcs[i][j]: the longest common subsequence of before[i..] and after[j..] (captions are tens of words).
    std::vector<std::vector<size_t>> lcs(n + 1, std::vector<size_t>(m + 1, 0));
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            lcs[i][j] = before[i] == after[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    CaptionDiff d { std::vector<bool>(n, true), std::vector<bool>(m, true) };
    for (size_t i = 0, j = 0; i < n && j < m;) {
        if (before[i] == after[j]) {
            d.removed[i++] = false;
            d.added[j++] = false;
        } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
            ++i;
        } else {
            ++j;
        }
    }
    return d;
}

} // namespace attn::ui
