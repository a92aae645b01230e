// SPDX-License-Identifier: MIT
#pragma once
// The Llama compute (RMSNorm, RoPE, GQA, SwiGLU) shared by HF llama / mistral / qwen2 and llama2.c checkpoints;
// the formats differ only in how the weights are read and in the RoPE pairing (config.ropeStyle).
#include "model/model.h"
#include "model/model_source.h"

#include <memory>
#include <vector>

namespace attn {

struct LlamaLayerWeights {
    Tensor attnNorm, wq, wk, wv, wo; ///< projections [out, in]
    Tensor bq, bk, bv, bo; ///< empty when the model has no such bias
    Tensor ffnNorm, gate, up, down; ///< gate = w1, up = w3, down = w2 in llama2.c names
};

struct LlamaWeights {
    Tensor embed; ///< [vocab, hidden]
    std::vector<LlamaLayerWeights> layers;
    Tensor finalNorm;
    Tensor lmHead; ///< [vocab, hidden]; empty = tied to embed
};

class LlamaModel : public DecoderModel {
public:
    LlamaModel(ModelConfig config, LlamaWeights weights);
    StepResult forward(
        KvCache& cache, const std::vector<int64_t>& tokens, const ForwardOptions& options) const override;

private:
    LlamaWeights m_w;
    int64_t m_rotaryDims;
};

/// HF LlamaForCausalLM / MistralForCausalLM / Qwen2ForCausalLM from a safetensors folder.
std::shared_ptr<LlamaModel> loadHfLlama(const ModelSource& source);
/// A llama2.c checkpoint (legacy or version 1, float32).
std::shared_ptr<LlamaModel> loadLlama2c(const ModelSource& source);

} // namespace attn
