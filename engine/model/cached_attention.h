// SPDX-License-Identifier: MIT
#pragma once
#include "core/tensor.h"

#include <cstdint>

namespace attn {

class Backend;
class KvCache;

/// Causal self-attention of n new positions of one decoder layer through the attention core.
/// q [hq, n, d] (after RoPE), k [hkv, n, d], v [hkv, n, dv] are appended to `cache` (not yet committed), then every
/// query head attends to all cached keys of its KV head (head h reads KV head h / (hq / hkv)).
/// The attention op runs on `backend` (null: the CPU attention core). Returns the merged head outputs [n, hq * dv]; if
/// probs is not null it receives [hq, n, T] with T = past + n.
Tensor cachedSelfAttention(KvCache& cache, int64_t layer, const Tensor& q, const Tensor& k, const Tensor& v,
    int64_t slidingWindow, Backend* backend, Tensor* probs);

} // namespace attn
