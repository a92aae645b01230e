// SPDX-License-Identifier: MIT
#pragma once
// The CPU attention core: the reference every backend and model is checked against.
#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <utility>
#include <span>
#include <vector>

namespace attn {

/// Which keys each query may see, plus additive biases, for one attention call.
/// Query row i sits at absolute position queryOffset + i; key column j sits at absolute position j.
struct MaskSpec {
    bool causal = false; ///< key j visible iff j <= queryOffset + i
    int64_t queryOffset = 0; ///< for KV-cache steps: number of positions before the first query
    /// > 0: with causal, query at position p sees keys p - w + 1 .. p, i.e. p - j < w (HF Mistral/Qwen2:
    /// transformers masking_utils.sliding_window_overlay, kv_idx > q_idx - sliding_window).
    /// Without causal: |p - j| < w.
    int64_t slidingWindow = 0;
    std::vector<uint8_t> keyKeep; ///< empty, or size k: 0 marks a padded key that is never attended
    const Tensor* keepMask = nullptr; ///< optional boolean mask (nonzero = keep), [q, k], [1, q, k] or [hq, q, k]
    const Tensor* bias = nullptr; ///< optional additive bias or mask (-inf allowed), [q, k], [1, q, k] or [hq, q, k]
};

struct AttentionOptions {
    float scale = 0.0f; ///< score multiplier; 0 means 1/sqrt(head_dim)
    /// > 0: scaled scores s become softcap * tanh(s / softcap) before the bias and the mask (gemma2); 0: none.
    float softcap = 0.0f;
    MaskSpec mask;
    bool wantProbs = true; ///< false: output only (probabilities never stored)
    /// Empty, or one factor per query head that multiplies its probabilities after the softmax, so that its output
    /// and its returned probabilities are scaled (HF head_mask: 1 keeps, 0 removes the head; rows are not
    /// renormalised).
    std::span<const float> headScale {};
    /// Asked before each block of query rows (and each KV head); true stops the call with Cancelled. Not owned.
    const std::function<bool()>* cancelRequested = nullptr;
    /// Called with every block of final probability rows (softmaxed and head-scaled), in row order within each query
    /// head: (query head of this call, first query row, rows, [rows, k] probabilities). A caller can summarize
    /// attention it never stores (SummaryCollector). Not owned.
    const std::function<void(int64_t head, int64_t row0, int64_t rows, const float* probs)>* observeRows = nullptr;
};

struct AttentionResult {
    Tensor probs; ///< [heads, q, k]; masked entries are exactly 0; empty when !wantProbs
    Tensor output; ///< [heads, q, dv]
};

/// Scaled dot-product multi-head attention with GQA/MQA.
/// q [hq, q, d], k [hkv, k, d], v [hkv, k, dv], hq % hkv == 0: query head h reads kv head h / (hq / hkv).
/// Softmax is max-subtracted; a query row with every key masked yields all-zero probabilities and a zero output.
/// The bias is added to the scaled scores before masking. With !wantProbs the scores are processed in row blocks
/// of bounded size, so no [q, k] buffer is needed. Throws Error on inconsistent shapes or a negative offset/window.
AttentionResult multiHeadAttention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options);

/// multiHeadAttention over keys and values kept apart per kv head (a KV cache keeps one [1, t, d] tensor per head),
/// written into the caller's storage: probs [hq, q, t], zero-filled by the caller (only visible keys are written;
/// null: not wanted, whatever options.wantProbs says), output [hq, q, dv]. One call for all the heads: no per-head
/// copies of q, of the masks or of the results. Throws Error as multiHeadAttention, and when the heads' shapes differ.
void multiHeadAttentionInto(const Tensor& q, std::span<const Tensor* const> keys, std::span<const Tensor* const> values,
    const AttentionOptions& options, float* probs, float* output);

/// The probabilities alone, [hq, q, k] (what the views ask for).
Tensor attentionProbabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options);

/// Multiplies block h of a head-major tensor [heads, ...] by scale[h] (no-op for an empty scale): head masks on the
/// results of a backend that does not apply them itself. Throws Error when the sizes differ.
void scaleHeads(Tensor& headMajor, std::span<const float> scale);

/// Numerically stable softmax over each row of a [rows, cols] row-major block, in place.
/// -inf entries become exactly 0; a row that is entirely -inf becomes all zeros (never NaN).
void softmaxRowsInPlace(float* data, int64_t rows, int64_t cols);

/// Log-sum-exp of one row (max-subtracted); -inf for an all -inf row.
float logSumExp(const float* row, int64_t cols);

/// The mask of `spec` as a [q, k] additive tensor: 0 where visible, -inf where masked (keepMask and bias excluded).
Tensor additiveMask(const MaskSpec& spec, int64_t numQueries, int64_t numKeys);

/// Half-open range [lo, hi) of the numKeys keys that the causal and sliding-window rules of `spec` leave visible to
/// query row i (spec.queryOffset applies; padding is not looked at).
std::pair<int64_t, int64_t> visibleRange(const MaskSpec& spec, int64_t queryRow, int64_t numKeys);

/// True if query row i may see key column j under the structural parts of `spec` (causal, window, padding).
bool keyVisible(const MaskSpec& spec, int64_t queryRow, int64_t keyCol);

} // namespace attn
