// SPDX-License-Identifier: MIT
#pragma once
#include "controller/attention_provider.h"
#include "model/attention_snapshot.h"
#include "plots/heatmap_matrix.h"

#include <QString>

#include <string>

namespace attn::test {

/// The golden HF attentions of fixtures/hf-tiny/<model>/golden/item0 as a snapshot (token text = "#id").
ui::SnapshotPtr goldenSnapshot(const std::string& model, bool causal, int64_t numKvHeads = 0);

/// golden attentions.LNN.npy of a fixture, [heads, q, k].
Tensor goldenAttention(const std::string& model, int layer);

/// The largest |m - golden[head]| over the keys a causal sliding window of `window` (0 = none) leaves visible,
/// expecting every hidden cell of the heatmap matrix `m` to be NaN (a failure names layer `layer` and the cell).
double maxDiffInsideWindow(
    const ui::HeatmapMatrix& m, const Tensor& golden, int64_t layer, int64_t head, int64_t window);

/// manifest.json inputs.items[0].text of a fixture.
QString fixtureText(const std::string& model);

/// A run of one token `text` whose one head attends to itself (scripted providers in controller tests).
ui::RunPtr singleTokenRun(const std::string& text);

/// Max |a - b| over two equally long float ranges.
double maxAbsDiff(const float* a, const float* b, int64_t n);

} // namespace attn::test
