// SPDX-License-Identifier: MIT
#pragma once
// Positional encodings as matrices for the Mechanisms tab: sinusoidal, RoPE angles and decay, T5 buckets, ALiBi.
#include "mechanisms/head_inputs.h"

#include <vector>

namespace attn {

/// Vaswani et al. sinusoids [T, d] (sin at even columns, cos at odd).
Mat sinusoidalTable(int64_t tokens, int64_t dim);

/// RoPE rotation angle position * theta^(-2i / d) of every position and dimension pair: [T, d / 2].
Mat ropeAngles(int64_t tokens, int64_t dim, double theta);

/// RoFormer's long-term decay bound of q . R(distance) k, (2 / d) sum_j |sum_{i < j} e^{i distance theta_i}| for
/// distance 0 .. maxDistance (1 at distance 0).
std::vector<double> ropeDecay(int64_t maxDistance, int64_t dim, double theta);

/// How T5 buckets relative positions: a T5 model's config.json relative_attention_num_buckets and
/// relative_attention_max_distance, or HF's defaults (32, 128) for any other input (the picture of a what-if).
struct T5Bucketing {
    int64_t buckets = 32;
    int64_t maxDistance = 128;
    bool fromModel = false; ///< the values are the model's config
};

/// `config`: the model's (null for synthetic input).
T5Bucketing t5Bucketing(const ModelConfig* config);

/// T5 relative position buckets [T, T] of key j for query i: t5BucketMap, the model's own bucketing of j - i.
Mat t5BucketMatrix(int64_t tokens, bool bidirectional, const T5Bucketing& bucketing);

/// ALiBi's bias slope_head * (j - i) [T, T] with the slopes of `numHeads` heads.
Mat alibiMatrix(int64_t tokens, int64_t numHeads, int64_t head);

} // namespace attn
