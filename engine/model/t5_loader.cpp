// SPDX-License-Identifier: MIT
// T5: RMS norms before each sublayer, relative position buckets from each stack's first layer, unscaled scores,
// relu or gated feed-forward, LM head tied with a d_model^-0.5 scale or separate.
#include "model/encdec_loaders.h"

#include "core/error.h"
#include "model/encdec_transformer.h"
#include "model/weight_reader.h"

#include <cmath>

namespace attn {
namespace {

/// Tensor names of the layout. Matrices (projections, feed-forward, embeddings, LM head) come through takeMatrix, so
/// F16/BF16 stay half; norms and the relative-position bias tables widen to float32.
struct T5Layout {
    WeightReader& r;
    int64_t D, inner, F;
    bool gated;

    NormWeights norm(const std::string& p) const { return { r.take(p + "layer_norm.weight", { D }), Tensor() }; }

    ProjectionWeights attention(const std::string& p) const
    {
        ProjectionWeights w;
        w.qW = r.takeMatrix(p + "q.weight", { inner, D });
        w.kW = r.takeMatrix(p + "k.weight", { inner, D });
        w.vW = r.takeMatrix(p + "v.weight", { inner, D });
        w.oW = r.takeMatrix(p + "o.weight", { D, inner });
        return w;
    }

    FeedForwardWeights feedForward(const std::string& p) const
    {
        FeedForwardWeights f;
        if (gated) {
            f.inW = r.takeMatrix(p + "DenseReluDense.wi_0.weight", { F, D });
            f.gateW = r.takeMatrix(p + "DenseReluDense.wi_1.weight", { F, D });
        } else {
            f.inW = r.takeMatrix(p + "DenseReluDense.wi.weight", { F, D });
        }
        f.outW = r.takeMatrix(p + "DenseReluDense.wo.weight", { D, F });
        return f;
    }

    StackWeights stack(const std::string& name, const Tensor& shared, int64_t heads, int64_t buckets) const
    {
        StackWeights s;
        const std::string embed = name + ".embed_tokens.weight";
        s.tokenEmbedding = r.has(embed) ? r.takeMatrix(embed, shared.shape()) : shared; // a tied duplicate when present
        s.positionKind = PositionKind::RelativeBuckets;
        s.relativeBias
            = r.take(name + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight", { buckets, heads });
        s.finalNorm = { r.take(name + ".final_layer_norm.weight", { D }), Tensor() };
        return s;
    }
};

} // namespace

std::shared_ptr<EncoderDecoderModel> loadT5(const ModelSource& source)
{
    const ModelConfig& c = source.config;
    WeightReader r(source.weightsPath);
    const int64_t D = c.hiddenSize, V = c.vocabSize;
    T5Layout L { r, D, c.numHeads * c.headDim, c.intermediateSize, c.gatedFeedForward };

    TransformerSeq2SeqWeights w;
    w.preNorm = true;
    w.attentionScale = 1.0f; // T5 folds the 1/sqrt(d) into its initialisation
    // HF maps "gated-gelu" to the tanh GELU (gelu_new); the other names mean what they say.
    w.activation = c.gatedFeedForward && c.activation == "gelu" ? Activation::GeluTanh
                                                                : parseActivation(c.activation, source.configPath);
    const Tensor shared = r.takeMatrix("shared.weight", { V, D });
    w.encoder = L.stack("encoder", shared, c.numHeads, c.relativeBuckets);
    w.decoder = L.stack("decoder", shared, c.numDecoderHeads, c.relativeBuckets);
    if (c.tieWordEmbeddings) {
        w.lmHead = shared;
        w.logitScale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(D)));
        r.skip("lm_head.weight");
    } else {
        w.lmHead = r.takeMatrix("lm_head.weight", { V, D });
    }
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = "encoder.block." + std::to_string(l) + ".layer.";
        EncoderLayerWeights e;
        e.selfNorm = L.norm(p + "0.");
        e.self = L.attention(p + "0.SelfAttention.");
        e.ffNorm = L.norm(p + "1.");
        e.ff = L.feedForward(p + "1.");
        w.encoderLayers.push_back(std::move(e));
    }
    for (int64_t l = 0; l < c.numDecoderLayers; ++l) {
        const std::string p = "decoder.block." + std::to_string(l) + ".layer.";
        DecoderLayerWeights d;
        d.selfNorm = L.norm(p + "0.");
        d.self = L.attention(p + "0.SelfAttention.");
        d.crossNorm = L.norm(p + "1.");
        d.cross = L.attention(p + "1.EncDecAttention.");
        d.ffNorm = L.norm(p + "2.");
        d.ff = L.feedForward(p + "2.");
        w.decoderLayers.push_back(std::move(d));
    }
    r.expectAllUsed();
    return makeTransformerSeq2Seq(c, std::move(w));
}

} // namespace attn
