// SPDX-License-Identifier: MIT
#pragma once
#include "model/layers.h"
#include "model/model.h"
#include "model/model_source.h"

#include <memory>
#include <vector>

namespace attn {

struct BertLayer {
    Tensor qW, qB, kW, kB, vW, vB, oW, oB, ln1w, ln1b, iW, iB, outW, outB, ln2w, ln2b; ///< weights [out, in]
};

/// The MLM head: transform dense + LayerNorm, then the word embeddings (tied) with their own bias.
struct BertHead {
    Tensor dW, dB, lnW, lnB, bias; ///< empty dW = no MLM head
};

/// BERT's weights. Matrices (embeddings, projections, head) may be packed half, kept as stored; vectors are float32.
struct BertWeights {
    Tensor word, pos, type, embLnW, embLnB;
    std::vector<BertLayer> layers;
    BertHead head;
};

/// BERT: word + position + token-type embeddings, post-LN encoder blocks, optional tied MLM head.
class BertModel final : public EncoderModel {
public:
    BertModel(ModelConfig config, BertWeights weights);
    StepResult encode(const std::vector<int64_t>& tokens, const std::vector<int64_t>& tokenTypes,
        const std::vector<uint8_t>& attentionMask, const ForwardOptions& options) const override;
    /// The weights as loaded (their storage: packed half or float32).
    const BertWeights& weights() const { return m_w; }

private:
    BertWeights m_w;
    Activation m_activation;
};

/// BertForMaskedLM (logits from the MLM head) or a bare BertModel (no logits) from a safetensors folder; F16/BF16
/// matrices stay half.
std::shared_ptr<BertModel> loadBert(const ModelSource& source);

} // namespace attn
