// SPDX-License-Identifier: MIT
#pragma once
// Comparing two attention patterns (two heads, two layers' head means, one head on two prompts): the mean over a
// layer's heads and the Jensen-Shannon divergence of each query row.
#include "core/tensor.h"

#include <cstdint>
#include <vector>

namespace attn {

/// [heads, q, k] -> [q, k]: the mean of a layer's heads (each row is still a distribution).
Tensor headMean(const Tensor& layer);

/// Per row of two [rows, keys] row-major matrices of distributions: JS(P, Q) = (KL(P || M) + KL(Q || M)) / 2 with
/// M = (P + Q) / 2, in nats (0 for equal rows, ln 2 for rows with disjoint support).
std::vector<double> jsDivergencePerRow(const float* p, const float* q, int64_t rows, int64_t keys);

/// The ratio map's floor: weights are compared as log2((b + f) / (a + f)), so keys neither pattern attends to (both
/// under a tenth of a percent of the row) show about 0 rather than the ratio of two rounding errors.
constexpr double kRatioFloor = 1e-3;

/// log2((b + kRatioFloor) / (a + kRatioFloor)): +1 where B puts twice A's weight, -1 half.
double log2Ratio(double b, double a);

} // namespace attn
