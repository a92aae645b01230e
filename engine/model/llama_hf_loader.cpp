// SPDX-License-Identifier: MIT
// HF checkpoints in the Llama tensor layout (model.layers.N.self_attn.q_proj, mlp.gate_proj ...): llama, mistral,
// qwen2, olmo, mixtral, gemma, gemma2 -> LlamaWeights; F16/BF16 matrices stay half (packed, widened in the products).
#include "core/error.h"
#include "model/decoder_weights.h"
#include "model/llama_model.h"

namespace attn {
namespace {

NormStyle normStyleOf(const ModelConfig& c) {
    if (c.modelType == "olmo") return NormStyle::LayerWithoutParameters;
    if (c.modelType == "gemma" || c.modelType == "gemma2") return NormStyle::RmsPlusOne;
    return NormStyle::Rms;
}

void takeFeedForward(WeightReader& r, const ModelConfig& c, const std::string& p, LlamaLayerWeights& lw) {
    const int64_t D = c.hiddenSize, I = c.intermediateSize;
    if (c.numExperts == 0) {
        lw.gate = r.takeMatrix(p + "mlp.gate_proj.weight", { I, D });
        lw.up = r.takeMatrix(p + "mlp.up_proj.weight", { I, D });
        lw.down = r.takeMatrix(p + "mlp.down_proj.weight", { D, I });
        return;
    }
    lw.router = r.takeMatrix(p + "block_sparse_moe.gate.weight", { c.numExperts, D });
    for (int64_t e = 0; e < c.numExperts; ++e) {
        const std::string ep = p + "block_sparse_moe.experts." + std::to_string(e) + ".";
        lw.experts.push_back({ .gate = r.takeMatrix(ep + "w1.weight", { I, D }),
            .up = r.takeMatrix(ep + "w3.weight", { I, D }),
            .down = r.takeMatrix(ep + "w2.weight", { D, I }) });
    }
}

} // namespace

std::shared_ptr<LlamaModel> loadHfLlama(const ModelSource& source) {
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath);
    const int64_t D = c.hiddenSize, V = c.vocabSize;
    const NormStyle norm = normStyleOf(c);
    const bool sandwich = c.modelType == "gemma2"; // four norms per layer
    LlamaWeights w;
    w.embed = r.takeMatrix("model.embed_tokens.weight", { V, D });
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LlamaLayerWeights lw;
        lw.attnNorm = takeNorm(r, p + "input_layernorm", D, norm);
        // Qwen2 has q/k/v biases only; attention_bias elsewhere covers o_proj too.
        takeAttentionProjections(
            r, c, p + "self_attn.", "o_proj", c.attentionBias, c.attentionBias && c.modelType != "qwen2", lw);
        r.skip(p + "self_attn.rotary_emb.inv_freq"); // a buffer older checkpoints carry; recomputed
        if (sandwich) {
            lw.postAttnNorm = takeNorm(r, p + "post_attention_layernorm", D, norm);
            lw.ffnNorm = takeNorm(r, p + "pre_feedforward_layernorm", D, norm);
            lw.postFfnNorm = takeNorm(r, p + "post_feedforward_layernorm", D, norm);
        } else {
            lw.ffnNorm = takeNorm(r, p + "post_attention_layernorm", D, norm);
        }
        takeFeedForward(r, c, p, lw);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = takeNorm(r, "model.norm", D, norm);
    takeLmHead(r, c, "lm_head.weight", w);
    r.expectAllUsed();
    return std::make_shared<LlamaModel>(c, std::move(w));
}

} // namespace attn
