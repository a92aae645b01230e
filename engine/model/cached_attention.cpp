// SPDX-License-Identifier: MIT
#include "model/cached_attention.h"

#include "attention/attention.h"
#include "backend/backend.h"
#include "model/kv_cache.h"

#include <cstring>

namespace attn {

Tensor cachedSelfAttention(KvCache& cache, int64_t layer, const Tensor& q, const Tensor& k, const Tensor& v,
    int64_t slidingWindow, Backend* backend, Tensor* probs) {
    const int64_t past = cache.length();
    cache.append(layer, q, k, v);
    const int64_t hq = q.dim(0), n = q.dim(1), d = q.dim(2);
    const int64_t hkv = cache.numKvHeads(), group = hq / hkv, total = past + n;
    const int64_t dv = v.dim(2);

    AttentionOptions options;
    options.mask.causal = true;
    options.mask.queryOffset = past;
    options.mask.slidingWindow = slidingWindow;
    options.wantProbs = probs != nullptr;

    // The cache keeps one [1, T, d] tensor per KV head, so each KV head's group of query heads is one core call:
    // the cached keys are read in place, never copied.
    Tensor merged({ n, hq * dv });
    if (probs) *probs = Tensor({ hq, n, total });
    Tensor qGroup({ group, n, d });
    for (int64_t g = 0; g < hkv; ++g) {
        std::memcpy(qGroup.data(), q.data() + g * group * n * d, sizeof(float) * group * n * d);
        const Tensor& keys = cache.keys(layer, g);
        const Tensor& values = cache.values(layer, g);
        const AttentionResult r = backend ? backend->attention(qGroup, keys, values, options)
                                          : multiHeadAttention(qGroup, keys, values, options);
        for (int64_t h = 0; h < group; ++h)
            for (int64_t row = 0; row < n; ++row)
                std::memcpy(merged.data() + row * hq * dv + (g * group + h) * dv, r.output.data() + (h * n + row) * dv,
                    sizeof(float) * dv);
        if (probs)
            std::memcpy(probs->data() + g * group * n * total, r.probs.data(), sizeof(float) * group * n * total);
    }
    return merged;
}

} // namespace attn
