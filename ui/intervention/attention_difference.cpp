// SPDX-License-Identifier: MIT
#include "intervention/attention_difference.h"

#include "mechanisms/matrix_snapshot.h"

#include <algorithm>

namespace attn::ui {

AttentionDifference attentionDifference(const AblationResult& result, int64_t layer, int64_t head)
{
    const InterventionDiff& d = result.diff;
    if (d.cleanAttention.empty()) return {};
    AttentionDifference out;
    out.layer = std::clamp<int64_t>(layer, 0, static_cast<int64_t>(d.cleanAttention.size()) - 1);
    const Tensor& clean = d.cleanAttention[static_cast<size_t>(out.layer)];
    const Tensor& changed = d.changedAttention[static_cast<size_t>(out.layer)];
    out.head = std::clamp<int64_t>(head, 0, clean.dim(0) - 1);
    const int64_t n = clean.dim(1), keys = clean.dim(2);
    Mat values(n, keys);
    const float* a = clean.data() + out.head * n * keys;
    const float* b = changed.data() + out.head * n * keys;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < keys; ++j)
            values(i, j) = static_cast<double>(b[i * keys + j]) - static_cast<double>(a[i * keys + j]);
    std::vector<TokenChip> chips;
    for (const int64_t id : result.tokens)
        chips.push_back({ result.text.at(id), id, false });
    MaskSpec causal;
    causal.causal = true;
    out.snapshot = matrixSnapshot(values, std::move(chips), {}, causal);
    out.snapshot->prepareOverviews(0, 0); // on the engine thread, with the difference (the heatmap reads them)
    out.unchanged = values.cwiseAbs().maxCoeff() == 0.0;
    return out;
}

} // namespace attn::ui
