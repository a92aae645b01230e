// SPDX-License-Identifier: MIT
// GPT-2 (GPT2LMHeadModel / GPT2Model): learned positions, pre-LN blocks, fused c_attn, tied LM head.
#include "model/gpt2_model.h"

#include "backend/backend.h"
#include "core/error.h"
#include "intervention/intervention.h"
#include "model/kv_cache.h"
#include "model/layers.h"
#include "model/weight_reader.h"

#include <chrono>

namespace attn {

namespace {

class Gpt2Model final : public DecoderModel {
public:
    Gpt2Model(ModelConfig config, std::vector<Gpt2Layer> layers, Tensor wte, Tensor wpe, Tensor lnfW, Tensor lnfB)
        : DecoderModel(std::move(config))
        , m_layers(std::move(layers))
        , m_wte(std::move(wte))
        , m_wpe(std::move(wpe))
        , m_lnfW(std::move(lnfW))
        , m_lnfB(std::move(lnfB))
        , m_activation(parseActivation(m_config.activation, m_config.source)) { }

    StepResult forward(
        KvCache& cache, const std::vector<int64_t>& tokens, const ForwardOptions& options) const override {
        const auto start = std::chrono::steady_clock::now();
        const ModelConfig& c = m_config;
        const int64_t n = static_cast<int64_t>(tokens.size()), past = cache.length(), D = c.hiddenSize;
        if (n == 0) throw Error("forward: no tokens");
        if (past + n > c.maxPositions)
            throw Error("sequence of " + std::to_string(past + n) + " positions exceeds the model's limit of "
                + std::to_string(c.maxPositions));
        Tensor embedded = gatherRows(m_wte, tokens, "token");
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < D; ++j)
                embedded.data()[i * D + j] += m_wpe.data()[(past + i) * D + j];
        StepResult result;
        runStream(options.backend, m_weightsLifetime, [&](Stream& s) {
            result = startResult(tokens, past, options); // a rerun after a device failure starts afresh
            try {
                const int64_t first = resumeReusedLayers(options, cache, result, c.numLayers);
                const Value x
                    = s.input(first > 0 ? options.resume->from->hiddenStates[static_cast<size_t>(first)] : embedded);
                if (options.wantHiddenStates) s.read(x, &result.hiddenStates.emplace_back());
                for (int64_t l = first; l < c.numLayers; ++l) {
                    const Gpt2Layer& w = m_layers[static_cast<size_t>(l)];
                    const Value qkv = s.linear(s.layerNorm(x, w.ln1w, w.ln1b, c.normEps), w.attnW, &w.attnB);
                    const Value q = s.splitHeads(qkv, c.numHeads, c.headDim, 0);
                    const Value k = s.splitHeads(qkv, c.numHeads, c.headDim, D);
                    const Value v = s.splitHeads(qkv, c.numHeads, c.headDim, 2 * D);
                    const Tensor keep = keyKeepMask(options, l, c.numHeads, n, past + n);
                    const auto observe = layerObserver(options, l);
                    const Value heads = s.cachedSelfAttention(cache, l, q, k, v,
                        { .headScale = headScaleRow(options, l),
                            .keep = keep.empty() ? nullptr : &keep,
                            .cancelRequested = cancelPoll(options),
                            .observeRows = observe ? &observe : nullptr },
                        options.wantAttention ? &result.attention[static_cast<size_t>(l)] : nullptr);
                    editHeads(s, options, l, heads);
                    s.add(x, s.linear(heads, w.projW, &w.projB));

                    const Value m = s.linear(s.layerNorm(x, w.ln2w, w.ln2b, c.normEps), w.fcW, &w.fcB);
                    s.activate(m, m_activation);
                    s.add(x, s.linear(m, w.fcProjW, &w.fcProjB));
                    editResidual(s, options, l, x);
                    if (options.wantHiddenStates && l + 1 < c.numLayers)
                        s.read(x, &result.hiddenStates.emplace_back());
                    s.flush();
                    reportLayerDone(options, l + 1, c.numLayers);
                }
                const Value normed = s.layerNorm(x, m_lnfW, m_lnfB, c.normEps);
                if (options.wantHiddenStates) s.read(normed, &result.hiddenStates.emplace_back());
                s.linearTo(logitsInput(s, normed, options), m_wte, nullptr, &result.logits);
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

private:
    std::vector<Gpt2Layer> m_layers;
    Tensor m_wte, m_wpe, m_lnfW, m_lnfB;
    Activation m_activation;
};

} // namespace

std::shared_ptr<DecoderModel> loadGpt2(const ModelSource& source) {
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath);
    // GPT2LMHeadModel prefixes the body with "transformer."; a bare GPT2Model does not.
    const std::string pre = r.has("transformer.wte.weight") ? "transformer." : "";
    const int64_t D = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize, P = c.maxPositions;
    if (c.headDim * c.numHeads != D) throw Error(source.configPath, "n_embd must equal n_head * head size");
    Tensor wte = r.take(pre + "wte.weight", { V, D });
    Tensor wpe = r.take(pre + "wpe.weight", { P, D });
    std::vector<Gpt2Layer> layers;
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = pre + "h." + std::to_string(l) + ".";
        Gpt2Layer w;
        w.ln1w = r.take(p + "ln_1.weight", { D });
        w.ln1b = r.take(p + "ln_1.bias", { D });
        // Conv1D stores [in, out]; transposed once here so every projection is a Linear.
        w.attnW = transposed(r.take(p + "attn.c_attn.weight", { D, 3 * D }));
        w.attnB = r.take(p + "attn.c_attn.bias", { 3 * D });
        w.projW = transposed(r.take(p + "attn.c_proj.weight", { D, D }));
        w.projB = r.take(p + "attn.c_proj.bias", { D });
        w.ln2w = r.take(p + "ln_2.weight", { D });
        w.ln2b = r.take(p + "ln_2.bias", { D });
        w.fcW = transposed(r.take(p + "mlp.c_fc.weight", { D, I }));
        w.fcB = r.take(p + "mlp.c_fc.bias", { I });
        w.fcProjW = transposed(r.take(p + "mlp.c_proj.weight", { I, D }));
        w.fcProjB = r.take(p + "mlp.c_proj.bias", { D });
        r.skip(p + "attn.bias"); // causal-mask buffers of older checkpoints
        r.skip(p + "attn.masked_bias");
        layers.push_back(std::move(w));
    }
    Tensor lnfW = r.take(pre + "ln_f.weight", { D });
    Tensor lnfB = r.take(pre + "ln_f.bias", { D });
    r.skip("lm_head.weight"); // tied to wte
    r.expectAllUsed();
    return std::make_shared<Gpt2Model>(
        c, std::move(layers), std::move(wte), std::move(wpe), std::move(lnfW), std::move(lnfB));
}

std::shared_ptr<DecoderModel> makeGpt2(ModelConfig config, Gpt2Weights w) {
    return std::make_shared<Gpt2Model>(std::move(config), std::move(w.layers), std::move(w.wte), std::move(w.wpe),
        std::move(w.lnfW), std::move(w.lnfB));
}

} // namespace attn
