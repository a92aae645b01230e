// SPDX-License-Identifier: MIT
#include "mechanisms/seq2seq_head_inputs.h"

#include "attention/position_bias.h"
#include "core/error.h"
#include "model/encdec_transformer.h"
#include "model/vision_encoder_decoder.h"

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

/// The weights the text side attends with (the captioner's decoder half for an image captioner).
const TransformerSeq2Seq& textSide(const EncoderDecoderModel& model)
{
    const EncoderDecoderModel* text = &model;
    if (const auto* captioner = dynamic_cast<const VisionEncoderDecoderModel*>(&model))
        text = &captioner->textDecoder();
    if (const auto* transformer = dynamic_cast<const TransformerSeq2Seq*>(text)) return *transformer;
    throw Error(model.config().source, "mechanisms read the heads of a transformer encoder-decoder or image captioner");
}

/// One cache field of `layer` as [heads, T, d] (the cache's [1, T, d] rows of every head stacked).
Tensor stackedRows(const std::vector<const Tensor*>& rows, int64_t T)
{
    const int64_t heads = static_cast<int64_t>(rows.size()), d = rows.front()->dim(2);
    Tensor t({ heads, T, d });
    for (int64_t h = 0; h < heads; ++h)
        std::copy_n(rows[static_cast<size_t>(h)]->data(), T * d, t.data() + h * T * d);
    return t;
}

std::vector<HeadInputs> decoderSelfHeads(const KvCache& cache, int64_t layer, int64_t T, const std::string& origin)
{
    std::vector<const Tensor*> q, k, v;
    for (int64_t h = 0; h < cache.numQueryHeads(); ++h)
        q.push_back(&cache.queries(layer, h));
    for (int64_t g = 0; g < cache.numKvHeads(); ++g) {
        k.push_back(&cache.keys(layer, g));
        v.push_back(&cache.values(layer, g));
    }
    return projectedHeadInputs(stackedRows(q, T), stackedRows(k, T), stackedRows(v, T), layer, origin);
}

const Tensor& layerOf(const std::vector<Tensor>& layers, int64_t layer, const ModelConfig& c, AttentionBlock block)
{
    if (layer < 0 || layer >= static_cast<int64_t>(layers.size()))
        throw Error(c.source,
            "layer " + std::to_string(layer) + " is outside the model's " + std::to_string(layers.size()) + " "
                + attentionBlockName(block) + " layers");
    return layers[static_cast<size_t>(layer)];
}

} // namespace

AttentionBlock parseAttentionBlock(const std::string& name)
{
    if (name == "encoder") return AttentionBlock::Encoder;
    if (name == "decoder") return AttentionBlock::Decoder;
    if (name == "cross") return AttentionBlock::Cross;
    throw Error("block '" + name + "': expected encoder, decoder or cross");
}

std::string attentionBlockName(AttentionBlock block)
{
    switch (block) {
    case AttentionBlock::Encoder:
        return "encoder";
    case AttentionBlock::Decoder:
        return "decoder";
    case AttentionBlock::Cross:
        return "cross";
    }
    return "?";
}

Seq2SeqHeads seq2seqHeads(const EncoderDecoderModel& model, const EncoderInput& source, std::vector<int64_t> target,
    AttentionBlock block, int64_t layer)
{
    const ModelConfig& c = model.config();
    const TransformerSeq2SeqWeights& w = textSide(model).weights();
    if (target.empty()) target = { model.decoderStartToken() };
    ForwardOptions options;
    options.wantQueryKeys = true;
    const auto encoding = model.encode(source, options);
    KvCache cache = model.newDecoderCache();
    const Seq2SeqStepResult decoded = model.decode(*encoding, cache, target, options);
    const std::string origin = model.description() + ", " + attentionBlockName(block) + " attention";
    const int64_t T = static_cast<int64_t>(target.size()), S = encoding->length();
    Seq2SeqHeads heads;
    heads.target = target;
    const StackWeights* stack = nullptr; // where T5 keeps this block's relative position bias
    switch (block) {
    case AttentionBlock::Encoder:
        heads.layer = projectedHeadInputs(layerOf(encoding->queries, layer, c, block),
            encoding->keys[static_cast<size_t>(layer)], encoding->values[static_cast<size_t>(layer)], layer, origin);
        heads.attention = encoding->attention;
        stack = &w.encoder;
        break;
    case AttentionBlock::Decoder:
        layerOf(decoded.attention, layer, c, block);
        heads.layer = decoderSelfHeads(cache, layer, T, origin);
        for (HeadInputs& h : heads.layer)
            h.causal = true;
        heads.attention = decoded.attention;
        stack = &w.decoder;
        break;
    case AttentionBlock::Cross:
        heads.layer = projectedHeadInputs(layerOf(decoded.crossQueries, layer, c, block),
            encoding->crossKeys[static_cast<size_t>(layer)], encoding->crossValues[static_cast<size_t>(layer)], layer,
            origin);
        for (HeadInputs& h : heads.layer)
            h.cross = true;
        heads.attention = decoded.crossAttention;
        break;
    }
    // The encoder of an image captioner is a ViT (1/sqrt(d), no bias); the text side's scale holds everywhere else.
    const bool imageEncoder = block == AttentionBlock::Encoder && w.encoderLayers.empty();
    Tensor bias;
    if (stack && stack->positionKind == PositionKind::RelativeBuckets) {
        const bool encoder = block == AttentionBlock::Encoder;
        const int64_t n = encoder ? S : T;
        bias = t5PositionBias(stack->relativeBias, n, n, 0, encoder, c.relativeBuckets, c.relativeMaxDistance);
    }
    for (HeadInputs& h : heads.layer) {
        if (!imageEncoder && w.attentionScale != 0.0f) h.scale = w.attentionScale;
        if (bias.empty()) continue;
        const int64_t n = h.tokens();
        h.bias = matrixOf(bias.data() + h.head * n * n, n, n);
    }
    return heads;
}

} // namespace attn
