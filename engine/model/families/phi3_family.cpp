// SPDX-License-Identifier: MIT
// Phi-3 (Phi3ForCausalLM): Llama's block with fused qkv_proj ([q | k | v]) and gate_up_proj ([gate | up]), split
// at load; longrope scaling in the released long-context configs.
#include "model/decoder_weights.h"
#include "model/families/decoder_config.h"
#include "model/families/families.h"

namespace attn::families {
namespace {

std::shared_ptr<Model> loadPhi3(const ModelSource& source)
{
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath);
    const int64_t D = c.hiddenSize, I = c.intermediateSize, V = c.vocabSize;
    const int64_t qDim = c.numHeads * c.headDim, kvDim = c.numKvHeads * c.headDim;
    LlamaWeights w;
    w.embed = r.takeMatrix("model.embed_tokens.weight", { V, D });
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LlamaLayerWeights lw;
        lw.attnNorm = takeNorm(r, p + "input_layernorm", D, NormStyle::Rms);
        std::vector<Tensor> qkv = r.takeMatrixRows(p + "self_attn.qkv_proj.weight", { qDim + 2 * kvDim, D },
            { rowRange(0, qDim), rowRange(qDim, kvDim), rowRange(qDim + kvDim, kvDim) });
        lw.wq = std::move(qkv[0]);
        lw.wk = std::move(qkv[1]);
        lw.wv = std::move(qkv[2]);
        lw.wo = r.takeMatrix(p + "self_attn.o_proj.weight", { D, qDim });
        lw.ffnNorm = takeNorm(r, p + "post_attention_layernorm", D, NormStyle::Rms);
        std::vector<Tensor> gateUp
            = r.takeMatrixRows(p + "mlp.gate_up_proj.weight", { 2 * I, D }, { rowRange(0, I), rowRange(I, I) });
        lw.gate = std::move(gateUp[0]);
        lw.up = std::move(gateUp[1]);
        lw.down = r.takeMatrix(p + "mlp.down_proj.weight", { D, I });
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = takeNorm(r, "model.norm", D, NormStyle::Rms);
    takeLmHead(r, c, "lm_head.weight", w);
    r.expectAllUsed();
    return std::make_shared<LlamaModel>(c, std::move(w));
}

} // namespace

ModelFamily phi3()
{
    ModelFamily f;
    f.modelTypes = { "phi3" };
    f.capabilities = kGenerate;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        readRotaryDecoder(f, c);
        // sliding_window is not applied: transformers' eager Phi3 ignores it (only flash-attention uses it).
        if (f.optBool("attention_bias", false)) throw Error(f.source(), "phi3 attention_bias is not supported");
    };
    f.load = loadPhi3;
    return f;
}

} // namespace attn::families
