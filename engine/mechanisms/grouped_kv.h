// SPDX-License-Identifier: MIT
#pragma once
// GQA / MQA as a what-if on query rows: what the Mechanisms tab's per-head table needs without the whole [T, T] of
// every head of the layer (runGroupedKv, in mechanism.h, is the whole head with every array it used).
#include "mechanisms/mechanism_report.h"

#include <functional>
#include <vector>

namespace attn {

/// gqa:G (spec) on query rows `rows` of the head: probs [rows, T] and out [rows, d] over its group's pooled keys and
/// values, with runGroupedKv's numbers and notes and the pooled k and v. Throws as runGroupedKv.
MechanismResult runGroupedKvRows(const HeadInputs& inputs, const MechanismSpec& spec, const std::vector<int64_t>& rows);

/// gqa:G against the exact attention for every query head of `layer`, on its rows sweepQueryRows(T, rowLimit) (exact
/// for those rows). `checkpoint` runs before each head: a caller stops by throwing from it.
std::vector<MechanismMetrics> groupedKvPerHead(const std::vector<HeadInputs>& layer, const MechanismSpec& spec,
    int64_t rowLimit, const std::function<void()>& checkpoint = {});

} // namespace attn
