// SPDX-License-Identifier: MIT
#pragma once
#include "model/layers.h"
#include "model/model.h"
#include "model/model_source.h"

#include <memory>
#include <vector>

namespace attn {

struct Gpt2Layer {
    Tensor ln1w, ln1b, attnW, attnB, projW, projB, ln2w, ln2b, fcW, fcB, fcProjW, fcProjB; ///< weights [out, in]
};

/// GPT-2's weights, every projection a Linear [out, in]; wte is also the LM head. Matrices may be packed (half or
/// quantized), vectors are float32.
struct Gpt2Weights {
    std::vector<Gpt2Layer> layers;
    Tensor wte, wpe, lnfW, lnfB;
};

/// GPT-2: learned positions, pre-LN blocks, fused c_attn, tied LM head.
class Gpt2Model final : public DecoderModel {
public:
    Gpt2Model(ModelConfig config, Gpt2Weights weights);
    StepResult forward(
        KvCache& cache, const std::vector<int64_t>& tokens, const ForwardOptions& options) const override;
    /// The weights as loaded (their storage: packed half or quantized, or float32).
    const Gpt2Weights& weights() const { return m_w; }

private:
    Gpt2Weights m_w;
    Activation m_activation;
};

/// GPT2LMHeadModel (or a bare GPT2Model) from a safetensors folder; F16/BF16 matrices stay half.
std::shared_ptr<Gpt2Model> loadGpt2(const ModelSource& source);

/// Whether `name` is one of GPT-2's Conv1D weights ([in, out], transposed once at load: c_attn, q_attn, c_proj,
/// c_fc), for the memory estimate of a file that holds them.
bool isGpt2Conv1dWeight(const std::string& name);

} // namespace attn
