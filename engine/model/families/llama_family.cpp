// SPDX-License-Identifier: MIT
// Llama and the families that keep its tensor layout and block: Mistral (sliding window), Qwen2 (q/k/v biases),
// OLMo (non-parametric LayerNorm, clip_qkv) and Mixtral (sparse MoE feed-forward).
#include "model/families/decoder_config.h"
#include "model/families/families.h"
#include "model/llama_model.h"

namespace attn::families {

ModelFamily llama()
{
    ModelFamily f;
    f.modelTypes = { "llama", "mistral", "qwen2", "olmo", "mixtral" };
    f.capabilities = kGenerate;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        readRotaryDecoder(f, c);
        const std::string& t = c.modelType;
        c.attentionBias = f.optBool("attention_bias", t == "qwen2");
        if (f.optBool("mlp_bias", false)) throw Error(f.source(), "mlp_bias is not supported");
        // Qwen2 slides only with use_sliding_window; Mistral and Mixtral whenever sliding_window is set.
        if (t == "mistral" || t == "mixtral" || (t == "qwen2" && f.optBool("use_sliding_window", false)))
            c.slidingWindow = f.optInteger("sliding_window", 0);
        if (t == "olmo") {
            c.normEps = 1e-5; // OlmoLayerNorm's fixed eps; config.json has none
            c.clipQkv = f.optNumber("clip_qkv", 0.0);
            if (c.clipQkv < 0) throw Error(f.source(), "clip_qkv must not be negative");
        }
        if (t == "mixtral") {
            c.numExperts = f.integer("num_local_experts");
            c.expertsPerToken = f.integer("num_experts_per_tok");
            if (c.numExperts < 1 || c.numExperts > 1024 || c.expertsPerToken < 1 || c.expertsPerToken > c.numExperts)
                throw Error(f.source(),
                    "num_experts_per_tok " + std::to_string(c.expertsPerToken) + " must be in 1..num_local_experts ("
                        + std::to_string(c.numExperts) + ")");
        }
    };
    f.load = [](const ModelSource& s) -> std::shared_ptr<Model> { return loadHfLlama(s); };
    return f;
}

} // namespace attn::families
