// SPDX-License-Identifier: MIT
#pragma once
// Any matrix of the Mechanisms tab (an attention, a difference, a position table) as a one-head snapshot, so that the
// ordinary heatmap view shows it with its zoom, hover, colour scales and export.
#include "mechanisms/head_inputs.h"
#include "model/attention_snapshot.h"

#include <QString>

#include <vector>

namespace attn::ui {

/// `rows` label the rows; `cols` the columns, or empty when the matrix is square over the same tokens. `mask` is the
/// structural mask drawn as masked cells (default: every cell shown).
SnapshotPtr matrixSnapshot(
    const Mat& values, std::vector<TokenChip> rows, std::vector<TokenChip> cols = {}, MaskSpec mask = {});

/// matrixSnapshot(a - b, ...) without the [T, T] double difference in between (at 4,096 tokens, 128 MiB written and
/// read again for each result).
SnapshotPtr differenceSnapshot(
    const Mat& a, const Mat& b, std::vector<TokenChip> rows, std::vector<TokenChip> cols = {}, MaskSpec mask = {});

/// "prefix0", "prefix1", ... (dimension or projection labels).
std::vector<TokenChip> indexChips(const QString& prefix, int64_t count);

} // namespace attn::ui
