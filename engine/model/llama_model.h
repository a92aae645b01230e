// SPDX-License-Identifier: MIT
#pragma once
// The rotary (or learned-position) decoder shared by HF llama / mistral / qwen2 / gemma / gemma2 / phi / phi3 /
// gpt_neox / olmo / starcoder2 / mixtral / opt and llama2.c checkpoints. The families differ in which weights exist (a
// norm with a bias is a LayerNorm, without one an RMSNorm; an FFN without a gate is a plain MLP; experts make it a
// sparse MoE; sandwich norms exist only in gemma2) and in the config features read into ModelConfig (parallel
// residual, OPT's post-LN, scaled or learned position embeddings, RoPE scaling, windows, soft-capping, clip_qkv).
#include "model/layers.h"
#include "model/model.h"
#include "model/model_source.h"

#include <memory>
#include <vector>

namespace attn {

/// A norm's parameters: with a bias it is a LayerNorm, without an RMSNorm. Families whose RMSNorm scales by (1 + w)
/// (gemma) store 1 + w here; a non-parametric LayerNorm (olmo) stores ones and zeros.
struct NormWeights {
    Tensor weight, bias;
    bool empty() const { return weight.empty(); }
};

/// One expert of a sparse MoE feed-forward (Mixtral w1 = gate, w3 = up, w2 = down).
struct ExpertWeights {
    Tensor gate, up, down;
};

struct LlamaLayerWeights {
    NormWeights attnNorm;
    Tensor wq, wk, wv, wo; ///< projections [out, in]
    Tensor bq, bk, bv, bo; ///< empty when the model has no such bias
    NormWeights postAttnNorm; ///< gemma2: on the attention output before the residual add; else empty
    NormWeights ffnNorm; ///< empty with a parallel residual that shares attnNorm (phi)
    NormWeights postFfnNorm; ///< gemma2: on the feed-forward output; else empty
    /// Gated FFN down(act(gate x) * up x); without gate a plain MLP down(act(up x + upBias)) + downBias.
    /// gate = w1, up = w3, down = w2 in llama2.c names.
    Tensor gate, up, down, upBias, downBias;
    Tensor router; ///< [experts, hidden] for a sparse MoE, whose experts replace gate/up/down
    std::vector<ExpertWeights> experts;
};

struct LlamaWeights {
    Tensor embed; ///< [vocab, embed dim]
    Tensor positions; ///< learned positions [positions + offset, embed dim] (opt); empty for rotary families
    Tensor projectIn, projectOut; ///< opt's word_embed_proj_dim != hidden_size; else empty
    std::vector<LlamaLayerWeights> layers;
    NormWeights finalNorm; ///< empty for a family without one
    Tensor lmHead; ///< [vocab, embed dim]; empty = tied to embed
    Tensor lmHeadBias; ///< phi; else empty
};

class LlamaModel : public DecoderModel {
public:
    LlamaModel(ModelConfig config, LlamaWeights weights);
    StepResult forward(
        KvCache& cache, const std::vector<int64_t>& tokens, const ForwardOptions& options) const override;
    /// The weights as loaded (their storage: packed half or quantized, or float32).
    const LlamaWeights& weights() const { return m_w; }

private:
    LlamaWeights m_w;
    int64_t m_rotaryDims;
    Activation m_activation;
};

/// HF LlamaForCausalLM / MistralForCausalLM / Qwen2ForCausalLM / OlmoForCausalLM / MixtralForCausalLM /
/// GemmaForCausalLM / Gemma2ForCausalLM from a safetensors folder (model.layers.N.self_attn.q_proj ... names).
std::shared_ptr<LlamaModel> loadHfLlama(const ModelSource& source);
/// A llama2.c checkpoint (legacy or version 1, float32).
std::shared_ptr<LlamaModel> loadLlama2c(const ModelSource& source);

} // namespace attn
