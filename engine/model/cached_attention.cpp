// SPDX-License-Identifier: MIT
#include "model/cached_attention.h"

#include "attention/attention.h"
#include "core/error.h"
#include "model/kv_cache.h"

#include <cstring>

namespace attn {

Tensor cachedSelfAttention(KvCache& cache, int64_t layer, const Tensor& q, const Tensor& k, const Tensor& v,
    const CachedAttentionSpec& spec, Tensor* probs) {
    const int64_t past = cache.length();
    const int64_t hq = q.dim(0), n = q.dim(1), d = q.dim(2);
    const int64_t hkv = cache.numKvHeads(), group = hq / hkv, total = past + n;
    const int64_t dv = v.dim(2);
    if (spec.bias) spec.bias->expectShape({ hq, n, total }, "cached attention bias");
    if (spec.keep) spec.keep->expectShape({ hq, n, total }, "cached attention keep mask");
    if (!spec.headScale.empty() && static_cast<int64_t>(spec.headScale.size()) != hq)
        throw Error("cached attention: " + std::to_string(spec.headScale.size()) + " head scales for "
            + std::to_string(hq) + " query heads");
    const auto poll = [&] {
        if (spec.cancelRequested && (*spec.cancelRequested)()) throw Cancelled();
    };
    poll();
    cache.append(layer, q, k, v);
    poll();

    AttentionOptions options;
    options.scale = spec.scale;
    options.mask.causal = true;
    options.mask.queryOffset = past;
    options.mask.slidingWindow = spec.slidingWindow;
    options.softcap = spec.softcap;
    options.wantProbs = probs != nullptr;
    options.cancelRequested = spec.cancelRequested;

    // The cache keeps one [1, T, d] tensor per KV head, so each KV head's group of query heads is one core call:
    // the cached keys are read in place, never copied.
    Tensor merged({ n, hq * dv });
    poll();
    if (probs) *probs = Tensor({ hq, n, total });
    poll();
    Tensor qGroup({ group, n, d }), biasGroup, keepGroup;
    if (spec.bias) {
        biasGroup = Tensor({ group, n, total });
        options.mask.bias = &biasGroup;
    }
    if (spec.keep) {
        keepGroup = Tensor({ group, n, total });
        options.mask.keepMask = &keepGroup;
    }
    for (int64_t g = 0; g < hkv; ++g) {
        std::memcpy(qGroup.data(), q.data() + g * group * n * d, sizeof(float) * group * n * d);
        if (spec.bias)
            std::memcpy(biasGroup.data(), spec.bias->data() + g * group * n * total, sizeof(float) * group * n * total);
        if (spec.keep)
            std::memcpy(keepGroup.data(), spec.keep->data() + g * group * n * total, sizeof(float) * group * n * total);
        if (!spec.headScale.empty())
            options.headScale = spec.headScale.subspan(static_cast<size_t>(g * group), static_cast<size_t>(group));
        // This call's heads and rows are the group's: the observer is told the model's head and position.
        const std::function<void(int64_t, int64_t, int64_t, const float*)> observeGroup
            = [&](int64_t h, int64_t row0, int64_t rows, const float* p) {
                  (*spec.observeRows)(g * group + h, past + row0, rows, p);
              };
        options.observeRows = spec.observeRows ? &observeGroup : nullptr;
        const Tensor& keys = cache.keys(layer, g);
        const Tensor& values = cache.values(layer, g);
        const AttentionResult r = multiHeadAttention(qGroup, keys, values, options);
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
