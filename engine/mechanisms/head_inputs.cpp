// SPDX-License-Identifier: MIT
#include "mechanisms/head_inputs.h"

#include "core/error.h"
#include "mechanisms/random_stream.h"
#include "model/kv_cache.h"
#include "session/session.h"

#include <cmath>

namespace attn {

namespace {

/// A [1, T, d] cache tensor as a [T, d] double matrix.
Mat cacheRows(const Tensor& t, int64_t rows)
{
    const int64_t d = t.dim(2);
    using RowMajorF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    return Eigen::Map<const RowMajorF>(t.data(), rows, d).cast<double>();
}

} // namespace

HeadInputs headInputsFromSession(const Session& session, int64_t layer, int64_t head)
{
    const ModelConfig& c = session.model().config();
    const KvCache* cache = session.cache();
    if (!cache)
        throw Error(c.source,
            "mechanisms read a head's queries, keys and values from the KV cache: only decoders (GPT-2, Llama family, "
            "llama2.c) keep them, not a "
                + modelKindName(c.kind) + " model");
    if (layer < 0 || layer >= c.numLayers || head < 0 || head >= c.numHeads)
        throw Error(c.source,
            "layer " + std::to_string(layer) + " head " + std::to_string(head) + " is outside the model's "
                + std::to_string(c.numLayers) + " layers x " + std::to_string(c.numHeads) + " heads");
    const int64_t T = session.length();
    if (T == 0) throw Error(c.source, "no input has run yet");
    HeadInputs in;
    in.layer = layer;
    in.head = head;
    in.numHeads = c.numHeads;
    in.kvHead = head / (c.numHeads / c.numKvHeads);
    in.q = cacheRows(cache->queries(layer, head), T);
    for (int64_t g = 0; g < c.numKvHeads; ++g) {
        in.layerKeys.push_back(cacheRows(cache->keys(layer, g), T));
        in.layerValues.push_back(cacheRows(cache->values(layer, g), T));
    }
    in.k = in.layerKeys[static_cast<size_t>(in.kvHead)];
    in.v = in.layerValues[static_cast<size_t>(in.kvHead)];
    in.causal = true;
    in.slidingWindow = c.slidingWindow;
    // Every decoder family read here scores with 1/sqrt(head_dim) (CachedAttentionSpec's default).
    in.scale = 1.0 / std::sqrt(static_cast<double>(in.dim()));
    in.origin = session.model().description();
    return in;
}

HeadInputs syntheticHeadInputs(int64_t tokens, int64_t dim, uint64_t seed)
{
    constexpr int64_t limit = 4096;
    if (tokens < 1 || tokens > limit || dim < 1 || dim > limit)
        throw Error("synthetic inputs: tokens " + std::to_string(tokens) + " and d_k " + std::to_string(dim)
            + " must each lie in [1, " + std::to_string(limit) + "]");
    RandomStream rng(seed);
    auto draw = [&] {
        Mat m(tokens, dim);
        for (int64_t i = 0; i < tokens; ++i)
            for (int64_t j = 0; j < dim; ++j)
                m(i, j) = static_cast<float>(rng.normal());
        return m;
    };
    HeadInputs in;
    in.q = draw();
    in.k = draw();
    in.v = draw();
    in.scale = 1.0 / std::sqrt(static_cast<double>(dim));
    in.origin = "synthetic unit-variance q, k, v (seed " + std::to_string(seed) + ")";
    return in;
}

KeepMask modelKeepMask(const HeadInputs& inputs)
{
    const int64_t T = inputs.tokens();
    KeepMask keep(T, T);
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j) {
            const int64_t back = i - j;
            bool visible = !inputs.causal || back >= 0;
            if (visible && inputs.slidingWindow > 0)
                visible = inputs.causal ? back < inputs.slidingWindow : std::abs(back) < inputs.slidingWindow;
            keep(i, j) = visible;
        }
    return keep;
}

} // namespace attn
