// SPDX-License-Identifier: MIT
#pragma once
// Sparsity patterns as keep masks, before the model's own mask is applied (the tests and the GUI draw them alone).
#include "mechanisms/head_inputs.h"

#include <vector>

namespace attn {

/// Sliding window: 0 <= i - j < w on a causal head, |i - j| < w on a bidirectional one.
KeepMask windowPattern(int64_t tokens, int64_t w, bool causal);

/// Longformer: the window plus full rows and columns for the global positions.
KeepMask longformerPattern(int64_t tokens, int64_t w, const std::vector<int64_t>& globals, bool causal);

/// BigBird: the window, the first `globals` tokens as global rows and columns, and per block of w queries `random`
/// distinct key blocks of w keys. The blocks come from RandomStream(seed) by a partial Fisher-Yates shuffle of the
/// candidate key blocks (0 .. query block on a causal head, every block otherwise), query block by query block:
/// for t < min(random, n): swap(cand[t], cand[t + below(n - t)]).
KeepMask bigBirdPattern(int64_t tokens, int64_t w, int64_t globals, int64_t random, uint64_t seed, bool causal);

/// Sparse Transformer strided: the last s positions (|i - j| < s when bidirectional) and every s-th one before.
KeepMask stridedPattern(int64_t tokens, int64_t s, bool causal);

/// Sparse Transformer fixed (Child et al. 2019): query i sees key j when floor(j / s) == floor(i / s) (its own block
/// of s positions) or j mod s >= s - c (the last c positions of every block, the "summary" columns); 1 <= c <= s.
/// The model's causality is applied afterwards, as for every pattern.
KeepMask fixedPattern(int64_t tokens, int64_t s, int64_t c);

/// Padding what-if: the given key positions are treated as padding, masked for every query.
KeepMask paddingPattern(int64_t tokens, const std::vector<int64_t>& padded);

/// The tokens of an image model: `prefix` tokens ([CLS], [DIST]) then a rows x cols patch grid, row-major.
struct PatchLayout {
    int64_t prefix = 0, rows = 0, cols = 0;
};

/// Swin shifted windows on the patch grid: patch (r, c) is in window (floor((r + w - s) / w), floor((c + w - s) / w))
/// and a query patch sees the key patches of its window; 0 <= s < w. With s > 0 this is exactly what Swin's cyclic
/// shift by s and its attention mask leave (the wrapped strips are windows of their own). Prefix tokens, which Swin
/// does not have, stay global (full rows and columns).
KeepMask swinPattern(const PatchLayout& layout, int64_t w, int64_t s);

/// Reformer angular LSH: bucket(x) = argmax([x R, -x R]) with R [d, buckets / 2] N(0, 1) from RandomStream(seed);
/// query i sees key j when both hash to the same bucket, and always itself so no row is empty.
KeepMask lshPattern(const Mat& q, const Mat& k, const Mat& rotations);
Mat lshRotations(int64_t dim, int64_t buckets, uint64_t seed);

} // namespace attn
