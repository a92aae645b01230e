// SPDX-License-Identifier: MIT
// HF Llama / Mistral / Qwen2 safetensors -> LlamaWeights; half-precision matrices stay half (packed).
#include "core/error.h"
#include "model/llama_model.h"
#include "model/weight_reader.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace attn {
namespace {

/// Config keys that change the compute in ways this implementation does not follow: refuse rather than be wrong.
void refuseUnsupported(const std::string& configPath) {
    std::ifstream in(configPath);
    const auto j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) return; // parseHfConfig already reported malformed JSON
    if (j.contains("rope_scaling") && !j["rope_scaling"].is_null())
        throw Error(configPath, "rope_scaling " + j["rope_scaling"].dump() + " is not supported");
    if (j.value("mlp_bias", false)) throw Error(configPath, "mlp_bias is not supported");
}

} // namespace

std::shared_ptr<LlamaModel> loadHfLlama(const ModelSource& source) {
    const ModelConfig& c = source.config;
    refuseUnsupported(source.configPath);
    WeightReader r(source.weightsPath);
    const int64_t D = c.hiddenSize, qDim = c.numHeads * c.headDim, kvDim = c.numKvHeads * c.headDim;
    const int64_t I = c.intermediateSize, V = c.vocabSize;
    LlamaWeights w;
    w.embed = r.takeMatrix("model.embed_tokens.weight", { V, D });
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LlamaLayerWeights lw;
        lw.attnNorm = r.take(p + "input_layernorm.weight", { D });
        lw.wq = r.takeMatrix(p + "self_attn.q_proj.weight", { qDim, D });
        lw.wk = r.takeMatrix(p + "self_attn.k_proj.weight", { kvDim, D });
        lw.wv = r.takeMatrix(p + "self_attn.v_proj.weight", { kvDim, D });
        lw.wo = r.takeMatrix(p + "self_attn.o_proj.weight", { D, qDim });
        if (c.attentionBias) {
            lw.bq = r.take(p + "self_attn.q_proj.bias", { qDim });
            lw.bk = r.take(p + "self_attn.k_proj.bias", { kvDim });
            lw.bv = r.take(p + "self_attn.v_proj.bias", { kvDim });
            if (c.modelType == "llama") // Qwen2 has q/k/v biases only; Llama's attention_bias covers o_proj too
                lw.bo = r.take(p + "self_attn.o_proj.bias", { D });
        }
        r.skip(p + "self_attn.rotary_emb.inv_freq"); // a buffer older checkpoints carry; recomputed
        lw.ffnNorm = r.take(p + "post_attention_layernorm.weight", { D });
        lw.gate = r.takeMatrix(p + "mlp.gate_proj.weight", { I, D });
        lw.up = r.takeMatrix(p + "mlp.up_proj.weight", { I, D });
        lw.down = r.takeMatrix(p + "mlp.down_proj.weight", { D, I });
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = r.take("model.norm.weight", { D });
    if (c.tieWordEmbeddings)
        r.skip("lm_head.weight"); // HF ties it to the embedding even when a copy is stored
    else
        w.lmHead = r.takeMatrix("lm_head.weight", { V, D });
    r.expectAllUsed();
    return std::make_shared<LlamaModel>(c, std::move(w));
}

} // namespace attn
