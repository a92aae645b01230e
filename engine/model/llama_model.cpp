// SPDX-License-Identifier: MIT
#include "model/llama_model.h"

#include "attention/rope_scaling.h"
#include "backend/backend.h"
#include "core/error.h"
#include "intervention/intervention.h"
#include "model/kv_cache.h"
#include "model/layers.h"
#include "model/moe_routing.h"

#include <chrono>
#include <cmath>

namespace attn {
namespace {

const Tensor* optional(const Tensor& t) { return t.empty() ? nullptr : &t; }

Value normed(Stream& s, const Value& x, const NormWeights& n, double eps) {
    return n.bias.empty() ? s.rmsNorm(x, n.weight, eps) : s.layerNorm(x, n.weight, n.bias, eps);
}

/// A dense feed-forward: gated down(act(gate h) * up h), or plain down(act(up h + b)) + b.
Value denseFeedForward(
    Stream& s, const Value& h, const Tensor& gate, const Tensor& up, const Tensor* upBias, const Tensor& down,
    const Tensor* downBias, Activation activation) {
    if (gate.empty()) {
        const Value m = s.linear(h, up, upBias);
        s.activate(m, activation);
        return s.linear(m, down, downBias);
    }
    const Value g = s.linear(h, gate, nullptr);
    s.activate(g, activation);
    s.multiply(g, s.linear(h, up, upBias));
    return s.linear(g, down, downBias);
}

/// Mixtral's sparse MoE: the router's logits come to the host (for the result and the routing), then each chosen
/// expert runs on the layer's rows and adds its output times the token's gate weight (0 for tokens that did not
/// choose it). Experts nobody chose are skipped, so a decode step runs k experts.
void addExperts(Stream& s, const Value& x, const Value& h, const LlamaLayerWeights& w, int64_t k,
    Activation activation, Tensor* routerLogits) {
    const Value logits = s.linear(h, w.router, nullptr);
    s.read(logits, routerLogits);
    s.flush();
    const Tensor weights = routeTopK(*routerLogits, k);
    const int64_t width = x->shape()[1];
    for (size_t e = 0; e < w.experts.size(); ++e) {
        bool used = false;
        Tensor gate = expertGate(weights, static_cast<int64_t>(e), width, &used);
        if (!used) continue;
        const ExpertWeights& ex = w.experts[e];
        const Value out = denseFeedForward(s, h, ex.gate, ex.up, nullptr, ex.down, nullptr, activation);
        s.multiply(out, s.input(std::move(gate)));
        s.add(x, out);
    }
}

/// The token embeddings, times sqrt(hidden) where the family scales them (in float32, as HF).
Tensor embedTokens(const ModelConfig& c, const LlamaWeights& w, const std::vector<int64_t>& tokens) {
    Tensor x = gatherRows(w.embed, tokens, "token");
    if (c.scaleEmbedding) {
        const float factor = std::sqrt(static_cast<float>(c.hiddenSize));
        for (float& v : x.storage())
            v *= factor;
    }
    return x;
}

/// Rows past + positionOffset .. of a learned position table (opt), one per new token.
Tensor positionRows(const ModelConfig& c, const Tensor& table, int64_t past, int64_t n) {
    std::vector<int64_t> rows(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        rows[static_cast<size_t>(i)] = past + i + c.positionOffset;
    return gatherRows(table, rows, "position");
}

} // namespace

LlamaModel::LlamaModel(ModelConfig config, LlamaWeights weights)
    : DecoderModel(std::move(config))
    , m_w(std::move(weights))
    , m_activation(parseActivation(m_config.activation, m_config.source)) {
    // HF: rotary dims = int(head_dim * partial_rotary_factor), always even in practice.
    m_rotaryDims = static_cast<int64_t>(static_cast<double>(m_config.headDim) * m_config.partialRotaryFactor);
    m_rotaryDims -= m_rotaryDims % 2;
}

StepResult LlamaModel::forward(
    KvCache& cache, const std::vector<int64_t>& tokens, const ForwardOptions& options) const {
    const auto start = std::chrono::steady_clock::now();
    const ModelConfig& c = m_config;
    const int64_t n = static_cast<int64_t>(tokens.size()), past = cache.length();
    if (n == 0) throw Error("forward: no tokens");
    // Learned positions end at the table; RoPE has no table, but only dynamic NTK is meant to go past the trained
    // length.
    if (past + n > c.maxPositions && c.ropeScaling.type != RopeScaling::Type::Dynamic)
        throw Error("sequence of " + std::to_string(past + n) + " positions exceeds the model's limit of "
            + std::to_string(c.maxPositions));
    const RotaryEmbedding rope = rotaryEmbedding(c, m_rotaryDims, past + n);
    const Tensor embedded = embedTokens(c, m_w, tokens);
    const float scale = c.queryPreAttnScalar > 0 ? static_cast<float>(1.0 / std::sqrt(c.queryPreAttnScalar)) : 0.0f;
    StepResult result;
    runStream(options.backend, m_weightsLifetime, [&](Stream& s) {
        result = startResult(tokens, past, options); // a rerun after a device failure starts afresh
        s.cancelInsideProducts(cancelPoll(options));
        if (c.numExperts > 0) result.routerLogits.resize(static_cast<size_t>(c.numLayers));
        try {
            const int64_t first = resumeReusedLayers(options, cache, result, c.numLayers);
            Value x = s.input(first > 0 ? options.resume->from->hiddenStates[static_cast<size_t>(first)] : embedded);
            if (first == 0 && !m_w.projectIn.empty()) x = s.linear(x, m_w.projectIn, nullptr);
            if (first == 0 && !m_w.positions.empty()) s.add(x, s.input(positionRows(c, m_w.positions, past, n)));
            if (options.wantHiddenStates) s.read(x, &result.hiddenStates.emplace_back());
            for (int64_t l = first; l < c.numLayers; ++l) {
                const LlamaLayerWeights& w = m_w.layers[static_cast<size_t>(l)];
                // Post-LN (opt-350m) normalizes after each residual add, so the sublayers read x itself.
                const Value h = c.postNorm ? x : normed(s, x, w.attnNorm, c.normEps);
                Value qkv[3] = { s.linear(h, w.wq, optional(w.bq)), s.linear(h, w.wk, optional(w.bk)),
                    s.linear(h, w.wv, optional(w.bv)) };
                if (c.clipQkv > 0)
                    for (const Value& p : qkv)
                        s.clamp(p, static_cast<float>(c.clipQkv));
                const Value q = s.splitHeads(qkv[0], c.numHeads, c.headDim, 0);
                const Value k = s.splitHeads(qkv[1], c.numKvHeads, c.headDim, 0);
                const Value v = s.splitHeads(qkv[2], c.numKvHeads, c.headDim, 0);
                s.rope(q, past, rope);
                s.rope(k, past, rope);
                const Tensor keep = keyKeepMask(options, l, c.numHeads, n, past + n);
                const auto observe = layerObserver(options, l);
                const CachedAttentionSpec spec { .scale = scale,
                    .slidingWindow = c.windowOfLayer(l),
                    .softcap = static_cast<float>(c.attnLogitSoftcap),
                    .headScale = headScaleRow(options, l),
                    .keep = keep.empty() ? nullptr : &keep,
                    .cancelRequested = cancelPoll(options),
                    .observeRows = observe ? &observe : nullptr };
                const Value heads = s.cachedSelfAttention(
                    cache, l, q, k, v, spec, options.wantAttention ? &result.attention[static_cast<size_t>(l)] : nullptr);
                editHeads(s, options, l, heads);
                Value attended = s.linear(heads, w.wo, optional(w.bo));
                if (!w.postAttnNorm.empty()) attended = normed(s, attended, w.postAttnNorm, c.normEps);

                // Parallel blocks read the layer input; sequential ones the input plus the attention output.
                if (!c.parallelResidual) s.add(x, attended);
                if (c.postNorm) x = normed(s, x, w.attnNorm, c.normEps);
                const Value h2 = c.postNorm ? x : w.ffnNorm.empty() ? h : normed(s, x, w.ffnNorm, c.normEps);
                if (c.parallelResidual) s.add(x, attended);
                if (!w.experts.empty()) {
                    addExperts(s, x, h2, w, c.expertsPerToken, m_activation, &result.routerLogits[static_cast<size_t>(l)]);
                } else {
                    Value m = denseFeedForward(s, h2, w.gate, w.up, optional(w.upBias), w.down, optional(w.downBias),
                        m_activation);
                    if (!w.postFfnNorm.empty()) m = normed(s, m, w.postFfnNorm, c.normEps);
                    s.add(x, m);
                }
                if (c.postNorm) x = normed(s, x, w.ffnNorm, c.normEps);
                editResidual(s, options, l, x);
                if (options.wantHiddenStates && l + 1 < c.numLayers) s.read(x, &result.hiddenStates.emplace_back());
                s.flush();
                reportLayerDone(options, l + 1, c.numLayers);
            }
            Value out = m_w.finalNorm.empty() ? x : normed(s, x, m_w.finalNorm, c.normEps);
            if (!m_w.projectOut.empty()) out = s.linear(out, m_w.projectOut, nullptr);
            if (options.wantHiddenStates) s.read(out, &result.hiddenStates.emplace_back());
            s.linearTo(logitsInput(s, out, options), m_w.lmHead.empty() ? m_w.embed : m_w.lmHead,
                optional(m_w.lmHeadBias), &result.logits);
            s.flush();
            cache.commit(n);
        } catch (...) {
            cache.rollback();
            throw;
        }
    });
    if (c.finalLogitSoftcap > 0) {
        const float cap = static_cast<float>(c.finalLogitSoftcap);
        for (float& v : result.logits.storage())
            v = std::tanh(v / cap) * cap;
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace attn
