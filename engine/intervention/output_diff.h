// SPDX-License-Identifier: MIT
#pragma once
// How an intervention changed a model's output distributions: KL per position and the top tokens before and after.
#include "core/tensor.h"

#include <cstdint>
#include <vector>

namespace attn {

/// Row-wise log-softmax of logits [n, vocab] in double precision.
std::vector<std::vector<double>> logSoftmaxRows(const Tensor& logits);

/// KL(P || Q) in nats per row, P = softmax(reference), Q = softmax(changed), both [n, vocab] -> [n].
/// Throws Error when the shapes differ.
Tensor klPerRow(const Tensor& reference, const Tensor& changed);

struct TopToken {
    int64_t id = 0;
    double probability = 0.0;
};

/// The k most probable tokens of each row of logits [n, vocab], most probable first (ties: lower id first).
std::vector<std::vector<TopToken>> topTokens(const Tensor& logits, int64_t k);

} // namespace attn
