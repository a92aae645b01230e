// SPDX-License-Identifier: MIT
#pragma once
// The log-probability of one entry of a row of logits, in double: what classifier and translator scoring share.
#include <cstdint>

namespace attn {

/// log softmax(row)[column] over row[0 .. n - 1], max-subtracted and summed in double.
double rowLogProb(const float* row, int64_t n, int64_t column);

} // namespace attn
