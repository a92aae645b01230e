// SPDX-License-Identifier: MIT
#pragma once
#include "controller/attention_provider.h"
#include "model/attention_snapshot.h"

#include <QString>

#include <string>

namespace attn::test {

/// The golden HF attentions of fixtures/hf-tiny/<model>/golden/item0 as a snapshot (token text = "#id").
ui::SnapshotPtr goldenSnapshot(const std::string& model, bool causal, int64_t numKvHeads = 0);

/// golden attentions.LNN.npy of a fixture, [heads, q, k].
Tensor goldenAttention(const std::string& model, int layer);

/// manifest.json inputs.items[0].text of a fixture.
QString fixtureText(const std::string& model);

/// A run of one token `text` whose one head attends to itself (scripted providers in controller tests).
ui::RunPtr singleTokenRun(const std::string& text);

/// Max |a - b| over two equally long float ranges.
double maxAbsDiff(const float* a, const float* b, int64_t n);

} // namespace attn::test
