// SPDX-License-Identifier: MIT
// GPT-NeoX / Pythia (GPTNeoXForCausalLM): query_key_value fused per head ([head][q | k | v][head_dim]), partial
// rotary (rotary_pct), parallel residual with two LayerNorms, biases everywhere, untied embed_out.
#include "model/decoder_weights.h"
#include "model/families/decoder_config.h"
#include "model/families/families.h"

namespace attn::families {
namespace {

/// Row indices of part (0 q, 1 k, 2 v) of every head of a per-head fused [heads * 3 * hd (, in)] projection.
std::vector<int64_t> perHeadRows(int64_t heads, int64_t headDim, int64_t part)
{
    std::vector<int64_t> rows;
    for (int64_t h = 0; h < heads; ++h) {
        const std::vector<int64_t> head = rowRange((3 * h + part) * headDim, headDim);
        rows.insert(rows.end(), head.begin(), head.end());
    }
    return rows;
}

Tensor pickRows(const Tensor& vector, const std::vector<int64_t>& rows)
{
    Tensor out({ static_cast<int64_t>(rows.size()) });
    for (size_t i = 0; i < rows.size(); ++i)
        out.data()[i] = vector.data()[rows[i]];
    return out;
}

std::shared_ptr<Model> loadGptNeox(const ModelSource& source)
{
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath);
    const int64_t D = c.hiddenSize, V = c.vocabSize, H = c.numHeads, hd = c.headDim;
    if (H * hd != D) throw Error(source.configPath, "gpt_neox hidden_size must equal num_attention_heads * head size");
    LlamaWeights w;
    w.embed = r.takeMatrix("gpt_neox.embed_in.weight", { V, D });
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = "gpt_neox.layers." + std::to_string(l) + ".";
        LlamaLayerWeights lw;
        lw.attnNorm = takeNorm(r, p + "input_layernorm", D, NormStyle::Layer);
        const std::vector<std::vector<int64_t>> parts
            = { perHeadRows(H, hd, 0), perHeadRows(H, hd, 1), perHeadRows(H, hd, 2) };
        std::vector<Tensor> qkv = r.takeMatrixRows(p + "attention.query_key_value.weight", { 3 * D, D }, parts);
        const Tensor qkvBias = r.take(p + "attention.query_key_value.bias", { 3 * D });
        lw.wq = std::move(qkv[0]);
        lw.wk = std::move(qkv[1]);
        lw.wv = std::move(qkv[2]);
        lw.bq = pickRows(qkvBias, parts[0]);
        lw.bk = pickRows(qkvBias, parts[1]);
        lw.bv = pickRows(qkvBias, parts[2]);
        lw.wo = r.takeMatrix(p + "attention.dense.weight", { D, D });
        lw.bo = r.take(p + "attention.dense.bias", { D });
        for (const char* buffer : { "attention.bias", "attention.masked_bias", "attention.rotary_emb.inv_freq" })
            r.skip(p + buffer); // buffers older checkpoints carry
        lw.ffnNorm = takeNorm(r, p + "post_attention_layernorm", D, NormStyle::Layer);
        takePlainFeedForward(r, c, p + "mlp.dense_h_to_4h", p + "mlp.dense_4h_to_h", true, lw);
        w.layers.push_back(std::move(lw));
    }
    w.finalNorm = takeNorm(r, "gpt_neox.final_layer_norm", D, NormStyle::Layer);
    takeLmHead(r, c, "embed_out.weight", w);
    r.expectAllUsed();
    return std::make_shared<LlamaModel>(c, std::move(w));
}

} // namespace

ModelFamily gptNeox()
{
    ModelFamily f;
    f.modelTypes = { "gpt_neox" };
    f.capabilities = kGenerate;
    f.readConfig = [](const ConfigFields& f, ModelConfig& c) {
        readRotaryDecoder(f, c);
        c.numKvHeads = c.numHeads;
        c.ropeTheta = f.optNumber("rotary_emb_base", f.optNumber("rope_theta", 10000.0));
        c.partialRotaryFactor = f.optNumber("rotary_pct", 0.25);
        c.normEps = f.optNumber("layer_norm_eps", 1e-5);
        c.activation = f.optString("hidden_act", "gelu");
        c.parallelResidual = f.optBool("use_parallel_residual", true);
        c.attentionBias = f.optBool("attention_bias", true);
        if (!c.attentionBias) throw Error(f.source(), "gpt_neox attention_bias=false is not supported");
    };
    f.load = loadGptNeox;
    return f;
}

} // namespace attn::families
