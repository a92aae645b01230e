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
#include <numeric>

namespace attn {

Gpt2Model::Gpt2Model(ModelConfig config, Gpt2Weights weights)
    : DecoderModel(std::move(config))
    , m_w(std::move(weights))
    , m_activation(parseActivation(m_config.activation, m_config.source))
{
}

StepResult Gpt2Model::forward(KvCache& cache, const std::vector<int64_t>& tokens, const ForwardOptions& options) const
{
    const auto start = std::chrono::steady_clock::now();
    const ModelConfig& c = m_config;
    const int64_t n = static_cast<int64_t>(tokens.size()), past = cache.length(), D = c.hiddenSize;
    if (n == 0) throw Error("forward: no tokens");
    if (past + n > c.maxPositions)
        throw Error("sequence of " + std::to_string(past + n) + " positions exceeds the model's limit of "
            + std::to_string(c.maxPositions));
    Tensor embedded = gatherRows(m_w.wte, tokens, "token");
    std::vector<int64_t> positions(static_cast<size_t>(n));
    std::iota(positions.begin(), positions.end(), past);
    addInPlace(embedded, gatherRows(m_w.wpe, positions, "position"));
    StepResult result;
    runStream(options.backend, m_weightsLifetime, [&](Stream& s) {
        result = startResult(tokens, past, options); // a rerun after a device failure starts afresh
        s.cancelInsideProducts(cancelPoll(options));
        try {
            const int64_t first = resumeReusedLayers(options, cache, result, c.numLayers);
            const Value x
                = s.input(first > 0 ? options.resume->from->hiddenStates[static_cast<size_t>(first)] : embedded);
            if (options.wantHiddenStates) s.read(x, &result.hiddenStates.emplace_back());
            for (int64_t l = first; l < c.numLayers; ++l) {
                const Gpt2Layer& w = m_w.layers[static_cast<size_t>(l)];
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
                if (options.wantHiddenStates && l + 1 < c.numLayers) s.read(x, &result.hiddenStates.emplace_back());
                s.flush();
                reportLayerDone(options, l + 1, c.numLayers);
            }
            const Value normed = s.layerNorm(x, m_w.lnfW, m_w.lnfB, c.normEps);
            if (options.wantHiddenStates) s.read(normed, &result.hiddenStates.emplace_back());
            s.linearTo(logitsInput(s, normed, options), m_w.wte, nullptr, &result.logits);
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

std::shared_ptr<Gpt2Model> loadGpt2(const ModelSource& source)
{
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath, isGpt2Conv1dWeight);
    // GPT2LMHeadModel prefixes the body with "transformer."; a bare GPT2Model does not.
    const std::string pre = r.has("transformer.wte.weight") ? "transformer." : "";
    const int64_t D = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize, P = c.maxPositions;
    if (c.headDim * c.numHeads != D) throw Error(source.configPath, "n_embd must equal n_head * head size");
    Gpt2Weights w;
    w.wte = r.takeMatrix(pre + "wte.weight", { V, D });
    w.wpe = r.takeMatrix(pre + "wpe.weight", { P, D });
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = pre + "h." + std::to_string(l) + ".";
        Gpt2Layer lw;
        lw.ln1w = r.take(p + "ln_1.weight", { D });
        lw.ln1b = r.take(p + "ln_1.bias", { D });
        // Conv1D stores [in, out]; transposed once here so every projection is a Linear.
        lw.attnW = r.takeTransposedMatrix(p + "attn.c_attn.weight", { D, 3 * D });
        lw.attnB = r.take(p + "attn.c_attn.bias", { 3 * D });
        lw.projW = r.takeTransposedMatrix(p + "attn.c_proj.weight", { D, D });
        lw.projB = r.take(p + "attn.c_proj.bias", { D });
        lw.ln2w = r.take(p + "ln_2.weight", { D });
        lw.ln2b = r.take(p + "ln_2.bias", { D });
        lw.fcW = r.takeTransposedMatrix(p + "mlp.c_fc.weight", { D, I });
        lw.fcB = r.take(p + "mlp.c_fc.bias", { I });
        lw.fcProjW = r.takeTransposedMatrix(p + "mlp.c_proj.weight", { I, D });
        lw.fcProjB = r.take(p + "mlp.c_proj.bias", { D });
        r.skip(p + "attn.bias"); // causal-mask buffers of older checkpoints
        r.skip(p + "attn.masked_bias");
        w.layers.push_back(std::move(lw));
    }
    w.lnfW = r.take(pre + "ln_f.weight", { D });
    w.lnfB = r.take(pre + "ln_f.bias", { D });
    r.skip("lm_head.weight"); // tied to wte
    r.expectAllUsed();
    return std::make_shared<Gpt2Model>(c, std::move(w));
}

bool isGpt2Conv1dWeight(const std::string& name)
{
    for (const char* suffix : { ".c_attn.weight", ".q_attn.weight", ".c_proj.weight", ".c_fc.weight" })
        if (name.ends_with(suffix)) return true;
    return false;
}

} // namespace attn
