// SPDX-License-Identifier: MIT
#include "mechanisms/head_inputs.h"

#include "attention/rope_scaling.h"
#include "core/error.h"
#include "mechanisms/random_stream.h"
#include "model/kv_cache.h"
#include "session/session.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attn {

Mat matrixOf(const float* data, int64_t rows, int64_t cols)
{
    // Row-major in, column-major out: tile by tile, so that neither side is read or written a whole row or column
    // apart at every entry (the plain cast took 16 % of a 4,096-token head switch in cache misses on [T, T]).
    constexpr int64_t kTile = 64;
    Mat out(rows, cols);
    for (int64_t j0 = 0; j0 < cols; j0 += kTile)
        for (int64_t i0 = 0; i0 < rows; i0 += kTile)
            for (int64_t j = j0; j < std::min(cols, j0 + kTile); ++j)
                for (int64_t i = i0; i < std::min(rows, i0 + kTile); ++i)
                    out(i, j) = static_cast<double>(data[i * cols + j]);
    return out;
}

namespace {

/// A [1, T, d] cache tensor as a [T, d] double matrix.
Mat cacheRows(const Tensor& t, int64_t rows)
{
    return matrixOf(t.data(), rows, t.dim(2));
}

void checkLayer(const ModelConfig& c, int64_t layer)
{
    if (layer < 0 || layer >= c.numLayers)
        throw Error(c.source,
            "layer " + std::to_string(layer) + " is outside the model's " + std::to_string(c.numLayers) + " layers");
}

/// Head `head` of a [heads, T, d] tensor as a [T, d] matrix.
Mat headRows(const Tensor& t, int64_t head)
{
    const int64_t T = t.dim(1), d = t.dim(2);
    return matrixOf(t.data() + head * T * d, T, d);
}

std::vector<HeadInputs> decoderHeadInputs(const Session& session, const KvCache& cache, int64_t layer)
{
    const ModelConfig& c = session.model().config();
    const int64_t T = session.length();
    HeadInputs in;
    in.layer = layer;
    in.numHeads = c.numHeads;
    auto kv = std::make_shared<LayerKv>();
    for (int64_t g = 0; g < c.numKvHeads; ++g) {
        kv->keys.push_back(cacheRows(cache.keys(layer, g), T));
        kv->values.push_back(cacheRows(cache.values(layer, g), T));
    }
    in.layerKv = kv;
    in.causal = true;
    in.slidingWindow = c.slidingWindow;
    in.origin = session.model().description();
    if (c.ropeStyle != RopeStyle::None) {
        // As the Llama family rotates (llama_model.cpp): the first head_dim * partial_rotary_factor dims, even.
        int64_t rotaryDims = static_cast<int64_t>(static_cast<double>(c.headDim) * c.partialRotaryFactor);
        rotaryDims -= rotaryDims % 2;
        in.rotary = rotaryEmbedding(c, rotaryDims, T);
    }
    std::vector<HeadInputs> heads;
    for (int64_t h = 0; h < c.numHeads; ++h) {
        HeadInputs& head = heads.emplace_back(in);
        head.head = h;
        head.kvHead = h / (c.numHeads / c.numKvHeads);
        head.q = cacheRows(cache.queries(layer, h), T);
        head.k = in.layerKv->keys[static_cast<size_t>(head.kvHead)];
        head.v = in.layerKv->values[static_cast<size_t>(head.kvHead)];
        // Every decoder family read here scores with 1/sqrt(head_dim) (CachedAttentionSpec's default).
        head.scale = 1.0 / std::sqrt(static_cast<double>(head.dim()));
    }
    return heads;
}

} // namespace

std::vector<HeadInputs> projectedHeadInputs(
    const Tensor& queries, const Tensor& keys, const Tensor& values, int64_t layer, const std::string& origin)
{
    HeadInputs in;
    in.layer = layer;
    in.numHeads = queries.dim(0);
    const int64_t kvHeads = keys.dim(0);
    auto kv = std::make_shared<LayerKv>();
    for (int64_t g = 0; g < kvHeads; ++g) {
        kv->keys.push_back(headRows(keys, g));
        kv->values.push_back(headRows(values, g));
    }
    in.layerKv = kv;
    in.origin = origin;
    std::vector<HeadInputs> heads;
    for (int64_t h = 0; h < in.numHeads; ++h) {
        HeadInputs& head = heads.emplace_back(in);
        head.head = h;
        head.kvHead = h / (in.numHeads / kvHeads);
        head.q = headRows(queries, h);
        head.k = in.layerKv->keys[static_cast<size_t>(head.kvHead)];
        head.v = in.layerKv->values[static_cast<size_t>(head.kvHead)];
        head.scale = 1.0 / std::sqrt(static_cast<double>(head.dim()));
    }
    return heads;
}

std::vector<HeadInputs> encoderHeadInputs(
    const StepResult& pass, const ModelConfig& c, int64_t layer, const std::string& origin)
{
    checkLayer(c, layer);
    const auto l = static_cast<size_t>(layer);
    if (l >= pass.queries.size() || l >= pass.keys.size() || l >= pass.values.size())
        throw Error(c.source, "the encoder pass kept no queries, keys and values for layer " + std::to_string(layer));
    return projectedHeadInputs(pass.queries[l], pass.keys[l], pass.values[l], layer, origin); // BERT's and ViT's
}

std::vector<HeadInputs> layerHeadInputs(const Session& session, int64_t layer)
{
    const ModelConfig& c = session.model().config();
    checkLayer(c, layer);
    if (session.length() == 0) throw Error(c.source, "no input has run yet");
    if (const KvCache* cache = session.cache()) return decoderHeadInputs(session, *cache, layer);
    const auto* encoder = dynamic_cast<const EncoderModel*>(&session.model());
    if (!encoder)
        throw Error(c.source,
            "mechanisms read a head's queries, keys and values from a decoder's KV cache or an encoder's pass, not a "
                + modelKindName(c.kind) + " model");
    ForwardOptions options;
    options.wantAttention = false;
    options.wantQueryKeys = true;
    const StepResult pass = encoder->encode(session.tokens(), {}, {}, options);
    return encoderHeadInputs(pass, c, layer, session.model().description());
}

HeadInputs headInputsFromSession(const Session& session, int64_t layer, int64_t head)
{
    const ModelConfig& c = session.model().config();
    if (head < 0 || head >= c.numHeads || layer < 0 || layer >= c.numLayers)
        throw Error(c.source,
            "layer " + std::to_string(layer) + " head " + std::to_string(head) + " is outside the model's "
                + std::to_string(c.numLayers) + " layers x " + std::to_string(c.numHeads) + " heads");
    return layerHeadInputs(session, layer)[static_cast<size_t>(head)];
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

KeepMask modelKeepMask(const HeadInputs& inputs, const std::vector<int64_t>& rows)
{
    const int64_t S = inputs.keyCount();
    KeepMask keep(static_cast<int64_t>(rows.size()), S);
    for (int64_t j = 0; j < S; ++j) // down each column: the mask is column-major
        for (size_t r = 0; r < rows.size(); ++r) {
            const int64_t back = rows[r] - j;
            bool visible = !inputs.causal || back >= 0;
            if (visible && inputs.slidingWindow > 0)
                visible = inputs.causal ? back < inputs.slidingWindow : std::abs(back) < inputs.slidingWindow;
            keep(static_cast<Eigen::Index>(r), j) = visible;
        }
    return keep;
}

KeepMask modelKeepMask(const HeadInputs& inputs)
{
    std::vector<int64_t> rows(static_cast<size_t>(inputs.tokens()));
    std::iota(rows.begin(), rows.end(), int64_t { 0 });
    return modelKeepMask(inputs, rows);
}

} // namespace attn
