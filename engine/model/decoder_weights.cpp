// SPDX-License-Identifier: MIT
#include "model/decoder_weights.h"

#include <algorithm>

namespace attn {

NormWeights takeNorm(WeightReader& r, const std::string& name, int64_t dim, NormStyle style)
{
    NormWeights n;
    switch (style) {
    case NormStyle::Rms:
        n.weight = r.take(name + ".weight", { dim });
        break;
    case NormStyle::RmsPlusOne:
        n.weight = r.take(name + ".weight", { dim });
        for (float& w : n.weight.storage())
            w += 1.0f; // float32, as GemmaRMSNorm's (1.0 + weight.float())
        break;
    case NormStyle::Layer:
        n.weight = r.take(name + ".weight", { dim });
        n.bias = r.take(name + ".bias", { dim });
        break;
    case NormStyle::LayerWithoutParameters:
        n.weight = Tensor({ dim });
        std::fill(n.weight.storage().begin(), n.weight.storage().end(), 1.0f);
        n.bias = Tensor({ dim });
        break;
    }
    return n;
}

void takeAttentionProjections(WeightReader& r, const ModelConfig& c, const std::string& attn, const std::string& out,
    bool qkvBias, bool outBias, LlamaLayerWeights& lw)
{
    const int64_t D = c.hiddenSize, qDim = c.numHeads * c.headDim, kvDim = c.numKvHeads * c.headDim;
    const auto bias = [&](const std::string& name, int64_t n, bool present) {
        return present ? r.take(attn + name + ".bias", { n }) : Tensor();
    };
    lw.wq = r.takeMatrix(attn + "q_proj.weight", { qDim, D });
    lw.bq = bias("q_proj", qDim, qkvBias);
    lw.wk = r.takeMatrix(attn + "k_proj.weight", { kvDim, D });
    lw.bk = bias("k_proj", kvDim, qkvBias);
    lw.wv = r.takeMatrix(attn + "v_proj.weight", { kvDim, D });
    lw.bv = bias("v_proj", kvDim, qkvBias);
    lw.wo = r.takeMatrix(attn + out + ".weight", { D, qDim });
    lw.bo = bias(out, D, outBias);
}

void takePlainFeedForward(WeightReader& r, const ModelConfig& c, const std::string& up, const std::string& down,
    bool bias, LlamaLayerWeights& lw)
{
    const int64_t D = c.hiddenSize, I = c.intermediateSize;
    lw.up = r.takeMatrix(up + ".weight", { I, D });
    lw.down = r.takeMatrix(down + ".weight", { D, I });
    if (bias) {
        lw.upBias = r.take(up + ".bias", { I });
        lw.downBias = r.take(down + ".bias", { D });
    }
}

void takeLmHead(WeightReader& r, const ModelConfig& c, const std::string& name, LlamaWeights& w)
{
    if (c.tieWordEmbeddings)
        r.skip(name);
    else
        w.lmHead = r.takeMatrix(name, { c.vocabSize, c.embeddingDim > 0 ? c.embeddingDim : c.hiddenSize });
}

} // namespace attn
