// SPDX-License-Identifier: MIT
// GGUF llama (incl. Mixtral-style experts) / qwen2 / gemma / gemma2 / phi3 (llama.cpp tensor names, llama-arch.cpp
// LLM_TENSOR_*) -> LlamaWeights, and the architecture dispatch of GGUF models.
#include "core/checked.h"
#include "core/error.h"
#include "core/memory_budget.h"
#include "io/gguf.h"
#include "model/decoder_weights.h"
#include "model/gguf_model.h"
#include "model/gguf_weights.h"
#include "model/gpt2_model.h"
#include "model/llama_model.h"
#include "quant/packed_matrix.h"

#include <cmath>

namespace attn {
namespace {

/// Metadata that changes the compute in ways the Llama forward does not follow: refuse rather than be wrong.
void refuseUnsupported(const GgufFile& g, const ModelConfig& c)
{
    const std::string p = c.modelType + ".";
    if (g.getInt(p + "expert_shared_count").value_or(0) > 0 || g.findTensor("blk.0.ffn_gate_inp_shexp.weight"))
        throw Error(g.path(), "shared experts (Qwen2-MoE / DeepSeek style) are not supported; Mixtral-style files are");
    if (c.numExperts > 0 && g.findTensor("blk.0.ffn_gate.0.weight"))
        throw Error(g.path(),
            "experts stored one tensor each (blk.N.ffn_gate.E.weight, files converted before llama.cpp merged them "
            "into ffn_gate_exps) are not supported; reconvert with a current convert_hf_to_gguf.py");
    const std::string scaling = g.getString(p + "rope.scaling.type").value_or("none");
    if (scaling != "none" && scaling != "linear" && scaling != "yarn")
        throw Error(g.path(),
            p + "rope.scaling.type \"" + scaling
                + "\" is not supported (linear, yarn, rope_freqs.weight and phi3's longrope factors are)");
    if (c.numLayers <= 0 || c.hiddenSize <= 0 || c.numHeads <= 0 || c.numKvHeads <= 0 || c.intermediateSize <= 0
        || c.vocabSize <= 0)
        throw Error(g.path(),
            "block_count, embedding_length, attention.head_count(_kv), feed_forward_length and the vocabulary size "
            "must all be positive");
    if (c.numHeads % c.numKvHeads != 0 || c.headDim % 2 != 0)
        throw Error(g.path(),
            std::to_string(c.numHeads) + " heads do not group over " + std::to_string(c.numKvHeads)
                + " KV heads of even size " + std::to_string(c.headDim));
}

/// Rows [first, first + count) of a packed matrix: a part of phi3's fused attn_qkv / ffn_up, in place.
Tensor packedRows(const Tensor& m, int64_t first, int64_t count)
{
    return Tensor::fromPacked(std::make_shared<const PackedMatrix>(m.packed()->rowSubset(rowRange(first, count))));
}

/// A layer's feed-forward: Mixtral-style experts behind a router, phi3's fused [gate | up], or gate / up / down.
void readFeedForward(GgufWeights& r, const ModelConfig& c, const std::string& p, bool fused, LlamaLayerWeights& lw)
{
    const int64_t D = c.hiddenSize, I = c.intermediateSize;
    if (c.numExperts > 0) {
        lw.router = r.matrix(p + "ffn_gate_inp.weight", c.numExperts, D);
        const std::vector<Tensor> gate = r.expertMatrices(p + "ffn_gate_exps.weight", c.numExperts, I, D);
        const std::vector<Tensor> up = r.expertMatrices(p + "ffn_up_exps.weight", c.numExperts, I, D);
        const std::vector<Tensor> down = r.expertMatrices(p + "ffn_down_exps.weight", c.numExperts, D, I);
        for (size_t e = 0; e < gate.size(); ++e)
            lw.experts.push_back({ .gate = gate[e], .up = up[e], .down = down[e] });
        return;
    }
    if (fused) {
        const Tensor gateUp = r.matrix(p + "ffn_up.weight", 2 * I, D);
        lw.gate = packedRows(gateUp, 0, I);
        lw.up = packedRows(gateUp, I, I);
    } else {
        lw.gate = r.matrix(p + "ffn_gate.weight", I, D);
        lw.up = r.matrix(p + "ffn_up.weight", I, D);
    }
    lw.down = r.matrix(p + "ffn_down.weight", D, I);
}

std::shared_ptr<LlamaModel> loadGgufLlama(const ModelSource& source, const std::shared_ptr<const GgufFile>& file)
{
    const ModelConfig& c = source.config;
    refuseUnsupported(*file, c);
    GgufWeights r(file);
    // Each factor is at most 2^31 (gguf_config.cpp), so the products fit; phi3's fused rows are a checked sum.
    const int64_t D = c.hiddenSize, qDim = c.numHeads * c.headDim, kvDim = c.numKvHeads * c.headDim;
    const int64_t V = c.vocabSize;
    // convert_hf_to_gguf.py permutes Q and K of llama (not of qwen2, whose RoPE llama.cpp runs as NEOX = HF's
    // rotate-half); undoing it lets HF's rotate-half RoPE run on the weights.
    // gemma, gemma2 and phi3 run llama.cpp's NEOX RoPE, rotate-half as HF: not permuted either.
    const bool permuted = c.modelType == "llama";
    const bool fused = c.modelType == "phi3";
    const bool sandwich = c.modelType == "gemma2"; // post-attention and post-feed-forward norms too
    const int64_t qkvRows = fused
        ? addOrThrow(qDim, mulOrThrow(2, kvDim, file->path(), "the K/V row count"), file->path(), "the QKV row count")
        : 0;
    if (permuted) {
        // The row orders take 8 bytes per row: the first layer's tensors must show those rows before the head counts
        // of the metadata alone size them (8 heads of 2^28 would ask for 16 GiB of a file of kilobytes).
        r.expect("blk.0.attn_q.weight", { qDim, D });
        r.expect("blk.0.attn_k.weight", { kvDim, D });
    }
    const std::vector<int64_t> qOrder = permuted ? unpermuteRopeRows(c.numHeads, c.headDim) : std::vector<int64_t> {};
    const std::vector<int64_t> kOrder = permuted ? unpermuteRopeRows(c.numKvHeads, c.headDim) : std::vector<int64_t> {};
    LlamaWeights w;
    w.embed = r.matrix("token_embd.weight", V, D);
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        LlamaLayerWeights lw;
        lw.attnNorm.weight = r.dense(p + "attn_norm.weight", { D });
        if (fused) { // phi3: [q | k | v] and [gate | up], as in HF's checkpoint
            const Tensor qkv = r.matrix(p + "attn_qkv.weight", qkvRows, D);
            lw.wq = packedRows(qkv, 0, qDim);
            lw.wk = packedRows(qkv, qDim, kvDim);
            lw.wv = packedRows(qkv, qDim + kvDim, kvDim);
        } else {
            lw.wq = r.matrix(p + "attn_q.weight", qDim, D, qOrder);
            lw.wk = r.matrix(p + "attn_k.weight", kvDim, D, kOrder);
            lw.wv = r.matrix(p + "attn_v.weight", kvDim, D);
        }
        lw.wo = r.matrix(p + "attn_output.weight", D, qDim);
        if (c.attentionBias) {
            if (permuted) throw Error(file->path(), "Q/K biases of a permuted llama file are not supported");
            lw.bq = r.dense(p + "attn_q.bias", { qDim });
            lw.bk = r.dense(p + "attn_k.bias", { kvDim });
            lw.bv = r.dense(p + "attn_v.bias", { kvDim });
        }
        if (sandwich) lw.postAttnNorm.weight = r.dense(p + "post_attention_norm.weight", { D });
        lw.ffnNorm.weight = r.dense(p + "ffn_norm.weight", { D });
        if (sandwich) lw.postFfnNorm.weight = r.dense(p + "post_ffw_norm.weight", { D });
        readFeedForward(r, c, p, fused, lw);
        w.layers.push_back(std::move(lw));
    }
    // The RoPE factor lists, read into the description (gguf_config.cpp): one per rotary pair, which dense() checks.
    const int64_t pairs = std::lround(c.partialRotaryFactor * static_cast<double>(c.headDim)) / 2;
    for (const char* name : { "rope_factors_long.weight", "rope_factors_short.weight", "rope_freqs.weight" })
        if (r.has(name)) (void)r.dense(name, { pairs });
    w.finalNorm.weight = r.dense("output_norm.weight", { D });
    if (r.has("output.weight")) w.lmHead = r.matrix("output.weight", V, D); // absent: tied, as llama.cpp does
    r.expectAllUsed();
    return std::make_shared<LlamaModel>(c, std::move(w));
}

/// llama.cpp's gpt2 tensors (convert_hf_to_gguf.py GPT2Model transposes the Conv1D weights to [out, in] and writes
/// output.weight as a copy of token_embd, which is skipped: the head is tied).
std::shared_ptr<DecoderModel> loadGgufGpt2(const ModelSource& source, const std::shared_ptr<const GgufFile>& file)
{
    const ModelConfig& c = source.config;
    if (c.numLayers <= 0 || c.hiddenSize <= 0 || c.numHeads <= 0 || c.headDim * c.numHeads != c.hiddenSize)
        throw Error(file->path(), "gpt2.block_count, embedding_length and attention.head_count do not fit together");
    GgufWeights r(file);
    const int64_t D = c.hiddenSize, I = c.intermediateSize;
    Gpt2Weights w;
    w.wte = r.matrix("token_embd.weight", c.vocabSize, D);
    w.wpe = r.matrix("position_embd.weight", c.maxPositions, D);
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = "blk." + std::to_string(l) + ".";
        Gpt2Layer lw;
        lw.ln1w = r.dense(p + "attn_norm.weight", { D });
        lw.ln1b = r.dense(p + "attn_norm.bias", { D });
        lw.attnW = r.matrix(p + "attn_qkv.weight", 3 * D, D);
        lw.attnB = r.dense(p + "attn_qkv.bias", { 3 * D });
        lw.projW = r.matrix(p + "attn_output.weight", D, D);
        lw.projB = r.dense(p + "attn_output.bias", { D });
        lw.ln2w = r.dense(p + "ffn_norm.weight", { D });
        lw.ln2b = r.dense(p + "ffn_norm.bias", { D });
        lw.fcW = r.matrix(p + "ffn_up.weight", I, D);
        lw.fcB = r.dense(p + "ffn_up.bias", { I });
        lw.fcProjW = r.matrix(p + "ffn_down.weight", D, I);
        lw.fcProjB = r.dense(p + "ffn_down.bias", { D });
        w.layers.push_back(std::move(lw));
    }
    w.lnfW = r.dense("output_norm.weight", { D });
    w.lnfB = r.dense("output_norm.bias", { D });
    if (r.has("output.weight")) (void)r.matrix("output.weight", c.vocabSize, D); // the tied copy
    r.expectAllUsed();
    return std::make_shared<Gpt2Model>(c, std::move(w));
}

} // namespace

std::shared_ptr<Model> loadGgufModel(const ModelSource& source)
{
    const auto file = std::make_shared<const GgufFile>(source.weightsPath);
    if (file->tensors().empty())
        throw Error(file->path(), "a vocab-only GGUF file (no tensors): it can tokenize, not run");
    requireMemory(file->residentBytesToLoad(), file->path(), "this model",
        "a smaller quantization of the model needs less: Q4_K about 0.6x of Q8_0");
    const std::string& arch = source.config.modelType;
    if (arch == "llama" || arch == "qwen2" || arch == "gemma" || arch == "gemma2" || arch == "phi3")
        return loadGgufLlama(source, file);
    if (arch == "gpt2") return loadGgufGpt2(source, file);
    throw Error(source.weightsPath,
        "GGUF architecture \"" + arch
            + "\" cannot be run yet: this build runs GGUF llama (incl. Mistral- and Mixtral-style), "
              "qwen2, gemma, gemma2, phi3 and gpt2 files");
}

} // namespace attn
