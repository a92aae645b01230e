// SPDX-License-Identifier: MIT
// HF Llama / Mistral / Qwen2 safetensors -> LlamaWeights.
#include "core/error.h"
#include "core/input_file.h"
#include "io/json_input.h"
#include "model/llama_model.h"
#include "model/weight_reader.h"

#include <nlohmann/json.hpp>

namespace attn {
namespace {

/// Config keys that change the compute in ways this implementation does not follow: refuse rather than be wrong.
void refuseUnsupported(const std::string& configPath) {
    const auto j = readUntrustedJson(configPath, file_caps::kConfigJson, "config");
    if (j.contains("rope_scaling") && !j["rope_scaling"].is_null()) {
        const auto& rs = j["rope_scaling"];
        const char* typeKey = rs.contains("rope_type") ? "rope_type" : "type";
        throw Error(configPath,
            "rope_scaling " + (rs.is_object() && rs.contains(typeKey) ? describeJson(rs[typeKey]) : describeJson(rs))
                + " is not supported");
    }
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
    w.embed = r.take("model.embed_tokens.weight", { V, D });
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LlamaLayerWeights lw;
        lw.attnNorm = r.take(p + "input_layernorm.weight", { D });
        lw.wq = r.take(p + "self_attn.q_proj.weight", { qDim, D });
        lw.wk = r.take(p + "self_attn.k_proj.weight", { kvDim, D });
        lw.wv = r.take(p + "self_attn.v_proj.weight", { kvDim, D });
        lw.wo = r.take(p + "self_attn.o_proj.weight", { D, qDim });
        if (c.attentionBias) {
            lw.bq = r.take(p + "self_attn.q_proj.bias", { qDim });
            lw.bk = r.take(p + "self_attn.k_proj.bias", { kvDim });
            lw.bv = r.take(p + "self_attn.v_proj.bias", { kvDim });
            if (c.modelType == "llama") // Qwen2 has q/k/v biases only; Llama's attention_bias covers o_proj too
                lw.bo = r.take(p + "self_attn.o_proj.bias", { D });
        }
        r.skip(p + "self_attn.rotary_emb.inv_freq"); // a buffer older checkpoints carry; recomputed
        lw.ffnNorm = r.take(p + "post_attention_layernorm.weight", { D });
        lw.gate = r.take(p + "mlp.gate_proj.weight", { I, D });
        lw.up = r.take(p + "mlp.up_proj.weight", { I, D });
        lw.down = r.take(p + "mlp.down_proj.weight", { D, I });
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = r.take("model.norm.weight", { D });
    if (c.tieWordEmbeddings)
        r.skip("lm_head.weight"); // HF ties it to the embedding even when a copy is stored
    else
        w.lmHead = r.take("lm_head.weight", { V, D });
    r.expectAllUsed();
    return std::make_shared<LlamaModel>(c, std::move(w));
}

} // namespace attn
