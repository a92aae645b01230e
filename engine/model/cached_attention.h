// SPDX-License-Identifier: MIT
#pragma once
#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <span>

namespace attn {

class KvCache;

/// How cached self-attention scores, beyond causality.
struct CachedAttentionSpec {
    float scale = 0.0f; ///< score scale; 0: 1/sqrt(head_dim)
    int64_t slidingWindow = 0; ///< 0: none
    float softcap = 0.0f; ///< gemma2's attention logit soft-capping (AttentionOptions::softcap); 0: none
    const Tensor* bias = nullptr; ///< additive [hq, n, past + n] (T5's relative positions); null: none
    std::span<const float> headScale {}; ///< empty, or per query head: AttentionOptions::headScale (HF head_mask)
    const Tensor* keep = nullptr; ///< [hq, n, past + n], nonzero = visible (key masks, keyKeepMask); null: none
    const std::function<bool()>* cancelRequested = nullptr; ///< AttentionOptions::cancelRequested (not owned)
    /// Every query head's final probability rows [rows, past + n] as they are computed, `query` the absolute position
    /// of the first (AttentionOptions::observeRows; not owned). Null: none.
    const std::function<void(int64_t head, int64_t query, int64_t rows, const float* probs)>* observeRows = nullptr;
};

/// Causal self-attention of n new positions of one decoder layer through the CPU attention core.
/// q [hq, n, d] (after RoPE), k [hkv, n, d], v [hkv, n, dv] are appended to `cache` (not yet committed), then every
/// query head attends to all cached keys of its KV head (head h reads KV head h / (hq / hkv)).
/// Returns the merged head outputs [n, hq * dv]; if probs is not null it receives [hq, n, T] with T = past + n.
Tensor cachedSelfAttention(KvCache& cache, int64_t layer, const Tensor& q, const Tensor& k, const Tensor& v,
    const CachedAttentionSpec& spec, Tensor* probs);

} // namespace attn
