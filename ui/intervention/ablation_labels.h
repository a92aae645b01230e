// SPDX-License-Identifier: MIT
#pragma once
// How the Intervene, Logit lens and head grid views name an ablation and a token.
#include "intervention/head_ablation.h"

#include <QString>

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attn::ui {

/// "zero", "mean" or "x0.5": what happens to each head of `ablation`.
QString ablationModeText(const Ablation& ablation);
/// "L2.H0 zero", "L1.H3, L1.H4 x0.5".
QString ablationLabel(const Ablation& ablation);
/// (layer, head) -> the modes applied to it, in order ("zero", "mean + x2"), over every ablation of the list.
std::map<std::pair<int64_t, int64_t>, QString> headMarks(const std::vector<Ablation>& ablations);

/// The text of token `id` from `text` (a result's id -> text), "[id]" when absent; spaces as ␣, newlines as ⏎.
QString shownToken(const std::unordered_map<int64_t, std::string>& text, int64_t id);

/// Rich text of two lines, the unmodified and the changed continuation (tokens by `text`), the changed one's tokens
/// from the first that differs in red, and where that is.
QString continuationHtml(const std::unordered_map<int64_t, std::string>& text, const std::vector<int64_t>& clean,
    const std::vector<int64_t>& changed);

} // namespace attn::ui
