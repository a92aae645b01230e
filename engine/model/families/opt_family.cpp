// SPDX-License-Identifier: MIT
// OPT (OPTForCausalLM): learned positions with offset 2, ReLU FFN, tied head, project_in / project_out when
// word_embed_proj_dim differs from hidden_size. Pre-LN blocks with a final layer norm (do_layer_norm_before=true), or
// post-LN blocks without one (opt-350m: each norm follows its residual add, as HF's OPTDecoderLayer).
#include "model/decoder_weights.h"
#include "model/families/families.h"

namespace attn::families {
namespace {

std::shared_ptr<Model> loadOpt(const ModelSource& source)
{
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath);
    const int64_t D = c.hiddenSize, V = c.vocabSize;
    const int64_t E = c.embeddingDim > 0 ? c.embeddingDim : D;
    const std::string pre = "model.decoder.";
    LlamaWeights w;
    w.embed = r.takeMatrix(pre + "embed_tokens.weight", { V, E });
    w.positions = r.takeMatrix(pre + "embed_positions.weight", { c.maxPositions + c.positionOffset, D });
    if (c.embeddingDim > 0) {
        w.projectIn = r.takeMatrix(pre + "project_in.weight", { D, E });
        w.projectOut = r.takeMatrix(pre + "project_out.weight", { E, D });
    }
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = pre + "layers." + std::to_string(l) + ".";
        LlamaLayerWeights lw;
        lw.attnNorm = takeNorm(r, p + "self_attn_layer_norm", D, NormStyle::Layer);
        takeAttentionProjections(r, c, p + "self_attn.", "out_proj", c.attentionBias, c.attentionBias, lw);
        lw.ffnNorm = takeNorm(r, p + "final_layer_norm", D, NormStyle::Layer);
        takePlainFeedForward(r, c, p + "fc1", p + "fc2", c.attentionBias, lw);
        w.layers.push_back(std::move(lw));
    }
    if (!c.postNorm) w.finalNorm = takeNorm(r, pre + "final_layer_norm", D, NormStyle::Layer);
    r.skip("lm_head.weight"); // tied to embed_tokens
    r.expectAllUsed();
    return std::make_shared<LlamaModel>(c, std::move(w));
}

} // namespace

ModelFamily opt()
{
    ModelFamily f;
    f.modelTypes = { "opt" };
    f.capabilities = kGenerate;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        c.kind = ModelKind::Decoder;
        c.numLayers = f.integer("num_hidden_layers");
        c.numHeads = f.integer("num_attention_heads");
        c.numKvHeads = c.numHeads;
        c.hiddenSize = f.integer("hidden_size");
        c.intermediateSize = f.integer("ffn_dim");
        c.vocabSize = f.integer("vocab_size");
        c.maxPositions = f.optInteger("max_position_embeddings", 2048);
        c.positionOffset = 2; // OPTLearnedPositionalEmbedding's offset
        const int64_t proj = f.optInteger("word_embed_proj_dim", c.hiddenSize);
        c.embeddingDim = proj == c.hiddenSize ? 0 : proj;
        c.activation = f.optString("activation_function", "relu");
        c.attentionBias = f.optBool("enable_bias", true);
        c.tieWordEmbeddings = true;
        c.normEps = 1e-5; // torch.nn.LayerNorm's default, as OPT builds its norms
        c.postNorm = !f.optBool("do_layer_norm_before", true);
        // Variants without a golden are refused rather than computed wrongly (post-LN has no final norm anyway).
        if (!c.postNorm && f.optBool("_remove_final_layer_norm", false))
            throw Error(f.source(), "opt _remove_final_layer_norm is not supported");
        if (!f.optBool("layer_norm_elementwise_affine", true))
            throw Error(f.source(), "opt layer_norm_elementwise_affine=false is not supported");
    };
    f.load = loadOpt;
    return f;
}

} // namespace attn::families
