// SPDX-License-Identifier: MIT
// StarCoder2 (Starcoder2ForCausalLM): LayerNorm with bias, biased q/k/v/o, plain GELU-tanh MLP (c_fc / c_proj), GQA.
#include "model/decoder_weights.h"
#include "model/families/decoder_config.h"
#include "model/families/families.h"

namespace attn::families {
namespace {

std::shared_ptr<Model> loadStarcoder2(const ModelSource& source)
{
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath);
    const int64_t D = c.hiddenSize, V = c.vocabSize;
    LlamaWeights w;
    w.embed = r.takeMatrix("model.embed_tokens.weight", { V, D });
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LlamaLayerWeights lw;
        lw.attnNorm = takeNorm(r, p + "input_layernorm", D, NormStyle::Layer);
        takeAttentionProjections(r, c, p + "self_attn.", "o_proj", c.attentionBias, c.attentionBias, lw);
        lw.ffnNorm = takeNorm(r, p + "post_attention_layernorm", D, NormStyle::Layer);
        takePlainFeedForward(r, c, p + "mlp.c_fc", p + "mlp.c_proj", c.attentionBias, lw);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = takeNorm(r, "model.norm", D, NormStyle::Layer);
    takeLmHead(r, c, "lm_head.weight", w);
    r.expectAllUsed();
    return std::make_shared<LlamaModel>(c, std::move(w));
}

} // namespace

ModelFamily starcoder2()
{
    ModelFamily f;
    f.modelTypes = { "starcoder2" };
    f.capabilities = kGenerate;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        readRotaryDecoder(f, c);
        c.normEps = f.optNumber("norm_epsilon", 1e-5);
        c.activation = f.optString("hidden_act", "gelu_pytorch_tanh");
        c.attentionBias = f.optBool("use_bias", true);
        c.tieWordEmbeddings = f.optBool("tie_word_embeddings", true);
        // sliding_window is not applied: transformers' eager Starcoder2 ignores it (only flash-attention uses it).
    };
    f.load = loadStarcoder2;
    return f;
}

} // namespace attn::families
