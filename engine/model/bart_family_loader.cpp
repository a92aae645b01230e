// SPDX-License-Identifier: MIT
// MarianMT, BART and Whisper share HF's BART layout (q/k/v/out_proj, fc1/fc2, *_layer_norm); they differ in positions,
// embedding norms and scales, norm placement and the LM head bias.
#include "model/encdec_loaders.h"

#include "attention/rope.h"
#include "core/checked.h"
#include "core/error.h"
#include "model/encdec_transformer.h"
#include "model/weight_reader.h"

#include <cmath>
#include <tuple>

namespace attn {
namespace {

/// Tensor names of the layout. Matrices (projections, feed-forward, embeddings, learned or stored positions,
/// Whisper's convolution kernels) come through takeMatrix, so F16/BF16 stay half; vectors widen to float32.
struct BartLayout {
    WeightReader& r;
    int64_t D;
    bool keyBias; ///< Whisper's k_proj has none

    NormWeights norm(const std::string& p) const
    {
        return { r.take(p + ".weight", { D }), r.take(p + ".bias", { D }) };
    }

    ProjectionWeights projection(const std::string& p) const
    {
        ProjectionWeights w;
        std::tie(w.qW, w.qB) = r.takeLinear(p + "q_proj", D, D);
        w.kW = r.takeMatrix(p + "k_proj.weight", { D, D });
        if (keyBias) w.kB = r.take(p + "k_proj.bias", { D });
        std::tie(w.vW, w.vB) = r.takeLinear(p + "v_proj", D, D);
        std::tie(w.oW, w.oB) = r.takeLinear(p + "out_proj", D, D);
        return w;
    }

    FeedForwardWeights feedForward(const std::string& p, int64_t F) const
    {
        FeedForwardWeights f;
        std::tie(f.inW, f.inB) = r.takeLinear(p + "fc1", F, D);
        std::tie(f.outW, f.outB) = r.takeLinear(p + "fc2", D, F);
        return f;
    }

    /// A tied duplicate if the file has it (equal to `fallback` by construction), else `fallback`.
    Tensor optional(const std::string& name, const Tensor& fallback) const
    {
        return r.has(name) ? r.takeMatrix(name, fallback.shape()) : fallback;
    }
};

} // namespace

std::shared_ptr<EncoderDecoderModel> loadBartFamily(const ModelSource& source)
{
    const ModelConfig& c = source.config;
    const std::string& type = c.modelType;
    const bool whisper = type == "whisper", bart = type == "bart", marian = type == "marian";
    if (!whisper && !bart && !marian)
        throw Error(source.configPath, "loadBartFamily: model_type \"" + type + "\" is not marian, bart or whisper");
    WeightReader r(source.weightsPath);
    const int64_t D = c.hiddenSize, V = c.vocabSize;
    // *ForConditionalGeneration prefixes the body with "model."; the bare model classes do not.
    const std::string pre = r.has("model.encoder.layers.0.fc1.weight") ? "model." : "";
    BartLayout L { r, D, !whisper };

    TransformerSeq2SeqWeights w;
    w.preNorm = whisper;
    w.embeddingScale = c.scaleEmbedding ? static_cast<float>(std::sqrt(static_cast<double>(D))) : 1.0f;
    w.activation = parseActivation(c.activation, source.configPath);

    if (whisper) {
        w.decoder.tokenEmbedding = r.takeMatrix(pre + "decoder.embed_tokens.weight", { V, D });
        w.audio.conv1W
            = r.takeFlattenedMatrix(pre + "encoder.conv1.weight", { D, c.numMelBins, AudioFrontEndWeights::kKernel });
        w.audio.conv1B = r.take(pre + "encoder.conv1.bias", { D });
        w.audio.conv2W = r.takeFlattenedMatrix(pre + "encoder.conv2.weight", { D, D, AudioFrontEndWeights::kKernel });
        w.audio.conv2B = r.take(pre + "encoder.conv2.bias", { D });
        w.encoder.positions = r.takeMatrix(pre + "encoder.embed_positions.weight", { c.maxPositions, D });
        w.decoder.positions = r.takeMatrix(pre + "decoder.embed_positions.weight", { c.maxTargetPositions, D });
        w.encoder.finalNorm = L.norm(pre + "encoder.layer_norm");
        w.decoder.finalNorm = L.norm(pre + "decoder.layer_norm");
        w.lmHead = L.optional("proj_out.weight", w.decoder.tokenEmbedding);
    } else {
        const Tensor shared = r.takeMatrix(pre + "shared.weight", { V, D });
        w.encoder.tokenEmbedding = L.optional(pre + "encoder.embed_tokens.weight", shared);
        w.decoder.tokenEmbedding = L.optional(pre + "decoder.embed_tokens.weight", shared);
        w.lmHead = L.optional("lm_head.weight", w.decoder.tokenEmbedding);
        w.finalLogitsBias = r.take("final_logits_bias", { 1, V }).reshaped({ V });
        if (c.maxPositions <= 0) throw Error(source.configPath, "max_position_embeddings must be positive");
        if (bart) {
            w.encoder.positionOffset = w.decoder.positionOffset = 2; // BartLearnedPositionalEmbedding's offset
            const int64_t rows = addOrThrow(c.maxPositions, 2, source.configPath, "max_position_embeddings");
            w.encoder.positions = r.takeMatrix(pre + "encoder.embed_positions.weight", { rows, D });
            w.decoder.positions = r.takeMatrix(pre + "decoder.embed_positions.weight", { rows, D });
            w.encoder.embeddingNorm = L.norm(pre + "encoder.layernorm_embedding");
            w.decoder.embeddingNorm = L.norm(pre + "decoder.layernorm_embedding");
        } else {
            // Marian's sinusoids are a buffer that save_pretrained leaves out; older files store them. A computed
            // table is sized by the config alone, so it is bounded (Marian models use 512 positions).
            constexpr int64_t kMaxComputedPositions = 1 << 16;
            const auto positions = [&](const std::string& name) {
                if (r.has(name)) return r.takeMatrix(name, { c.maxPositions, D });
                if (c.maxPositions > kMaxComputedPositions)
                    throw Error(source.configPath,
                        "max_position_embeddings " + std::to_string(c.maxPositions) + " is more than the "
                            + std::to_string(kMaxComputedPositions) + " positions a computed sinusoid table may have");
                return sinusoidalPositions(c.maxPositions, D, SinusoidLayout::MarianHalfSplit);
            };
            w.encoder.positions = positions(pre + "encoder.embed_positions.weight");
            w.decoder.positions = positions(pre + "decoder.embed_positions.weight");
        }
    }

    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = pre + "encoder.layers." + std::to_string(l) + ".";
        EncoderLayerWeights e;
        e.self = L.projection(p + "self_attn.");
        e.selfNorm = L.norm(p + "self_attn_layer_norm");
        e.ff = L.feedForward(p, c.intermediateSize);
        e.ffNorm = L.norm(p + "final_layer_norm");
        w.encoderLayers.push_back(std::move(e));
    }
    for (int64_t l = 0; l < c.numDecoderLayers; ++l) {
        const std::string p = pre + "decoder.layers." + std::to_string(l) + ".";
        DecoderLayerWeights d;
        d.self = L.projection(p + "self_attn.");
        d.selfNorm = L.norm(p + "self_attn_layer_norm");
        d.cross = L.projection(p + "encoder_attn.");
        d.crossNorm = L.norm(p + "encoder_attn_layer_norm");
        d.ff = L.feedForward(p, c.decoderIntermediateSize);
        d.ffNorm = L.norm(p + "final_layer_norm");
        w.decoderLayers.push_back(std::move(d));
    }
    r.expectAllUsed();
    return makeTransformerSeq2Seq(c, std::move(w));
}

} // namespace attn
