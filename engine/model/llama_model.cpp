// SPDX-License-Identifier: MIT
#include "model/llama_model.h"

#include "attention/rope.h"
#include "backend/backend.h"
#include "core/error.h"
#include "intervention/intervention.h"
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
    runStream(options.backend, m_weightsLifetime, [&](Stream& s) {
        result = startResult(tokens, past, options); // a rerun after a device failure starts afresh
        const auto optionalBias = [](const Tensor& b) { return b.empty() ? nullptr : &b; };
        const Value x = s.input(gatherRows(m_w.embed, tokens, "token"));
        try {
            if (options.wantHiddenStates) s.read(x, &result.hiddenStates.emplace_back());
            for (int64_t l = 0; l < c.numLayers; ++l) {
                const LlamaLayerWeights& w = m_w.layers[static_cast<size_t>(l)];
                const Value h = s.rmsNorm(x, w.attnNorm, c.normEps);
                const Value q = s.splitHeads(s.linear(h, w.wq, optionalBias(w.bq)), c.numHeads, c.headDim, 0);
                const Value k = s.splitHeads(s.linear(h, w.wk, optionalBias(w.bk)), c.numKvHeads, c.headDim, 0);
                const Value v = s.splitHeads(s.linear(h, w.wv, optionalBias(w.bv)), c.numKvHeads, c.headDim, 0);
                s.rope(q, past, c.ropeStyle, c.ropeTheta, m_rotaryDims);
                s.rope(k, past, c.ropeStyle, c.ropeTheta, m_rotaryDims);
                const Value heads = s.cachedSelfAttention(cache, l, q, k, v,
                    { .slidingWindow = c.slidingWindow, .headScale = headScaleRow(options, l) },
                    options.wantAttention ? &result.attention[static_cast<size_t>(l)] : nullptr);
                editHeads(s, options, l, heads);
                s.add(x, s.linear(heads, w.wo, optionalBias(w.bo)));

                const Value h2 = s.rmsNorm(x, w.ffnNorm, c.normEps);
                const Value gate = s.linear(h2, w.gate, nullptr);
                s.activate(gate, Activation::Silu);
                s.multiply(gate, s.linear(h2, w.up, nullptr));
                s.add(x, s.linear(gate, w.down, nullptr));
                editResidual(s, options, l, x);
                if (options.wantHiddenStates && l + 1 < c.numLayers) s.read(x, &result.hiddenStates.emplace_back());
                s.flush();
                reportLayerDone(options, l + 1, c.numLayers);
            }
            const Value normed = s.rmsNorm(x, m_w.finalNorm, c.normEps);
            if (options.wantHiddenStates) s.read(normed, &result.hiddenStates.emplace_back());
            s.linearTo(normed, m_w.lmHead.empty() ? m_w.embed : m_w.lmHead, nullptr, &result.logits);
            s.flush();
            cache.commit(n);
        } catch (...) {
            cache.rollback();
            throw;
        }
    });
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace attn
