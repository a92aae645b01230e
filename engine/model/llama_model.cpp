// SPDX-License-Identifier: MIT
#include "model/llama_model.h"

#include "attention/rope.h"
#include "backend/backend_ops.h"
#include "core/error.h"
#include "model/cached_attention.h"
#include "model/kv_cache.h"
#include "model/layers.h"

#include <chrono>

namespace attn {

LlamaModel::LlamaModel(ModelConfig config, LlamaWeights weights)
    : DecoderModel(std::move(config))
    , m_w(std::move(weights)) {
    // HF: rotary dims = int(head_dim * partial_rotary_factor), always even in practice.
    m_rotaryDims = static_cast<int64_t>(static_cast<double>(m_config.headDim) * m_config.partialRotaryFactor);
    m_rotaryDims -= m_rotaryDims % 2;
    if (m_config.activation != "silu" && m_config.activation != "swish")
        throw Error(m_config.source, "llama-family activation \"" + m_config.activation + "\" is not supported (silu)");
}

StepResult LlamaModel::forward(
    KvCache& cache, const std::vector<int64_t>& tokens, const ForwardOptions& options) const {
    const auto start = std::chrono::steady_clock::now();
    const ModelConfig& c = m_config;
    const int64_t n = static_cast<int64_t>(tokens.size()), past = cache.length();
    if (n == 0) throw Error("forward: no tokens");
    if (past + n > c.maxPositions)
        throw Error("sequence of " + std::to_string(past + n) + " positions exceeds the model's limit of "
            + std::to_string(c.maxPositions));
    StepResult result;
    result.firstPosition = past;
    result.tokens = tokens;
    Tensor x = gatherRows(m_w.embed, tokens, "token");
    try {
        if (options.wantHiddenStates) result.hiddenStates.push_back(x);
        for (int64_t l = 0; l < c.numLayers; ++l) {
            const LlamaLayerWeights& w = m_w.layers[static_cast<size_t>(l)];
            const Tensor h = rmsNorm(x, w.attnNorm, c.normEps);
            Tensor q
                = splitHeads(linearOn(options.backend, h, w.wq, w.bq.empty() ? nullptr : &w.bq), c.numHeads, c.headDim);
            Tensor k = splitHeads(
                linearOn(options.backend, h, w.wk, w.bk.empty() ? nullptr : &w.bk), c.numKvHeads, c.headDim);
            const Tensor v = splitHeads(
                linearOn(options.backend, h, w.wv, w.bv.empty() ? nullptr : &w.bv), c.numKvHeads, c.headDim);
            ropeOn(options.backend, q, past, c.ropeStyle, c.ropeTheta, m_rotaryDims);
            ropeOn(options.backend, k, past, c.ropeStyle, c.ropeTheta, m_rotaryDims);
            Tensor probs;
            const Tensor heads = cachedSelfAttention(
                cache, l, q, k, v, c.slidingWindow, options.backend, options.wantAttention ? &probs : nullptr);
            addInPlace(x, linearOn(options.backend, heads, w.wo, w.bo.empty() ? nullptr : &w.bo));
            if (options.wantAttention) result.attention.push_back(std::move(probs));

            const Tensor h2 = rmsNorm(x, w.ffnNorm, c.normEps);
            Tensor gate = linearOn(options.backend, h2, w.gate);
            applyActivation(gate, Activation::Silu);
            multiplyInPlace(gate, linearOn(options.backend, h2, w.up));
            addInPlace(x, linearOn(options.backend, gate, w.down));
            if (options.wantHiddenStates && l + 1 < c.numLayers) result.hiddenStates.push_back(x);
            reportLayerDone(options, l + 1, c.numLayers);
        }
        cache.commit(n);
    } catch (...) {
        cache.rollback();
        throw;
    }
    const Tensor normed = rmsNorm(x, m_w.finalNorm, c.normEps);
    if (options.wantHiddenStates) result.hiddenStates.push_back(normed);
    result.logits = linearOn(options.backend, normed, m_w.lmHead.empty() ? m_w.embed : m_w.lmHead);
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace attn
