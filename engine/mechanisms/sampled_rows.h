// SPDX-License-Identifier: MIT
#pragma once
// Row-wise measures of a long head on a sample of its query rows. Every row of a head's softmax (at any temperature,
// with any pooled keys, tiled or not) depends on its own query only, so a measure taken on these rows is exact for
// them and, past kSweepRowLimit rows, a sample of the whole head's mean: what the Mechanisms tab's sweeps, temperature
// and d_k curves, GQA table and FlashAttention tiles run on, instead of the whole [T, T] at every point.
#include "mechanisms/head_inputs.h"

#include <cstdint>
#include <vector>

namespace attn {

/// Query rows a row-wise measure takes at most (the pages name the count when it is below the head's).
inline constexpr int64_t kSweepRowLimit = 256;

/// All of 0 .. tokens - 1 when tokens <= limit, else `limit` rows evenly spaced from the first to the last.
std::vector<int64_t> sweepQueryRows(int64_t tokens, int64_t limit);

/// The head's exact scores (exactScores: q k^T * scale + bias, or an RNN's learned score) and its model mask
/// (modelKeepMask) on query rows `rows` only: [rows, keys] each.
struct ScoreRows {
    std::vector<int64_t> rows;
    Mat scores;
    KeepMask keep;
};
ScoreRows exactScoreRows(const HeadInputs& inputs, const std::vector<int64_t>& rows);

/// The head's exact probabilities on `rows` (the rows of exactProbabilities).
Mat exactProbabilityRows(const HeadInputs& inputs, const std::vector<int64_t>& rows);

} // namespace attn
