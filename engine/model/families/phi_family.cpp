// SPDX-License-Identifier: MIT
// Phi (phi-1 / phi-1.5 / phi-2, PhiForCausalLM): one LayerNorm feeding attention and MLP in parallel, partial
// rotary, biased projections, self_attn.dense, final_layernorm and an lm_head with bias.
#include "model/decoder_weights.h"
#include "model/families/decoder_config.h"
#include "model/families/families.h"

namespace attn::families {
namespace {

std::shared_ptr<Model> loadPhi(const ModelSource& source)
{
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath);
    const int64_t D = c.hiddenSize, V = c.vocabSize;
    LlamaWeights w;
    w.embed = r.takeMatrix("model.embed_tokens.weight", { V, D });
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        LlamaLayerWeights lw;
        lw.attnNorm = takeNorm(r, p + "input_layernorm", D, NormStyle::Layer); // shared by attention and MLP
        takeAttentionProjections(r, c, p + "self_attn.", "dense", true, true, lw);
        takePlainFeedForward(r, c, p + "mlp.fc1", p + "mlp.fc2", true, lw);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = takeNorm(r, "model.final_layernorm", D, NormStyle::Layer);
    w.lmHead = r.takeMatrix("lm_head.weight", { V, D });
    w.lmHeadBias = r.take("lm_head.bias", { V });
    r.expectAllUsed();
    return std::make_shared<LlamaModel>(c, std::move(w));
}

} // namespace

ModelFamily phi()
{
    ModelFamily f;
    f.modelTypes = { "phi" };
    f.capabilities = kGenerate;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        readRotaryDecoder(f, c);
        c.activation = f.optString("hidden_act", "gelu_new");
        c.normEps = f.optNumber("layer_norm_eps", 1e-5);
        c.attentionBias = true;
        c.parallelResidual = true;
        if (f.optBool("qk_layernorm", false)) throw Error(f.source(), "phi qk_layernorm is not supported");
    };
    f.load = loadPhi;
    return f;
}

} // namespace attn::families
