// SPDX-License-Identifier: MIT
#pragma once
// Position-dependent score biases: ALiBi and T5 relative position buckets.
#include "core/tensor.h"

#include <cstdint>
#include <vector>

namespace attn {

/// ALiBi head slopes (Press et al.), including the interpolation for head counts that are not powers of two.
std::vector<float> alibiSlopes(int64_t numHeads);

/// ALiBi bias [heads, q, k]: slope_h * (j - (queryOffset + i)) (the causal form; non-positive for visible keys).
/// HF Bloom adds slope_h * j instead, which differs by a per-row constant and so gives the same softmax.
Tensor alibiBias(const std::vector<float>& slopes, int64_t numQueries, int64_t numKeys, int64_t queryOffset = 0);

/// T5's bucket of a relative position (memory_position - query_position), exactly as HF
/// T5Attention._relative_position_bucket (its logarithmic branch in float32, as torch evaluates it).
/// Throws Error when numBuckets / maxDistance leave no logarithmic range (max_exact < 1 or maxDistance <= max_exact).
int64_t t5RelativeBucket(int64_t relativePosition, bool bidirectional, int64_t numBuckets, int64_t maxDistance);

/// The bucket of every query-key pair, row-major [numQueries * numKeys]: t5RelativeBucket(j - (queryOffset + i)).
/// The one bucket map the model's bias (t5PositionBias) and the Mechanisms tab's picture of it are both read from;
/// numBuckets / maxDistance are the config's relative_attention_num_buckets / relative_attention_max_distance.
std::vector<int64_t> t5BucketMap(int64_t numQueries, int64_t numKeys, int64_t queryOffset, bool bidirectional,
    int64_t numBuckets, int64_t maxDistance);

/// T5 position bias [heads, q, k] from the learned table [numBuckets, heads], at t5BucketMap's buckets.
Tensor t5PositionBias(const Tensor& table, int64_t numQueries, int64_t numKeys, int64_t queryOffset, bool bidirectional,
    int64_t numBuckets, int64_t maxDistance);

} // namespace attn
