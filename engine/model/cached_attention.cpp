// SPDX-License-Identifier: MIT
#include "model/cached_attention.h"

#include "attention/attention.h"
#include "core/error.h"
#include "model/kv_cache.h"
#include "model/layers.h"

#include <span>
#include <vector>

namespace attn {

Tensor cachedSelfAttention(KvCache& cache, int64_t layer, const Tensor& q, const Tensor& k, const Tensor& v,
    const CachedAttentionSpec& spec, Tensor* probs) {
    const int64_t past = cache.length();
    const int64_t hq = q.dim(0), n = q.dim(1);
    const int64_t hkv = cache.numKvHeads(), total = past + n;
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
    options.mask.bias = spec.bias;
    options.mask.keepMask = spec.keep;
    options.softcap = spec.softcap;
    options.headScale = spec.headScale;
    options.cancelRequested = spec.cancelRequested;
    // The core's rows are this call's: the observer is told the model's position.
    const std::function<void(int64_t, int64_t, int64_t, const float*)> observeAt
        = [&](int64_t h, int64_t row0, int64_t rows, const float* p) { (*spec.observeRows)(h, past + row0, rows, p); };
    options.observeRows = spec.observeRows ? &observeAt : nullptr;

    // The cache keeps one [1, T, d] tensor per KV head: one core call reads them all in place, and writes the
    // probabilities straight into the result (a decode step made a call, a copy of its queries and of its results per
    // KV head before). They are listed on the stack up to 64 kv heads: this runs per layer at every decode step.
    constexpr size_t kStackHeads = 64;
    const Tensor* stackHeads[2 * kStackHeads];
    std::vector<const Tensor*> heapHeads(static_cast<size_t>(hkv) > kStackHeads ? static_cast<size_t>(2 * hkv) : 0);
    const Tensor** kv = heapHeads.empty() ? stackHeads : heapHeads.data();
    for (int64_t g = 0; g < hkv; ++g) {
        kv[g] = &cache.keys(layer, g);
        kv[hkv + g] = &cache.values(layer, g);
    }
    if (probs) *probs = Tensor({ hq, n, total });
    poll();
    // [hq, n, dv] is already [n, hq * dv] for one new position: the result is written in its final shape.
    Tensor heads(n == 1 ? Shape { 1, hq * dv } : Shape { hq, n, dv });
    const auto kvHeads = static_cast<size_t>(hkv);
    multiHeadAttentionInto(q, std::span(kv, kvHeads), std::span(kv + hkv, kvHeads), options,
        probs ? probs->data() : nullptr, heads.data());
    return n == 1 ? std::move(heads) : mergeHeads(heads);
}

} // namespace attn
