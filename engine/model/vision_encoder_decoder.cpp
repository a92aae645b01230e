// SPDX-License-Identifier: MIT
#include "model/vision_encoder_decoder.h"

#include "core/error.h"
#include "intervention/intervention.h"
#include "model/encdec_transformer.h"
#include "model/gpt2_model.h"
#include "model/vision_encoder_decoder_config.h"
#include "model/vit_model.h"
#include "model/weight_reader.h"

#include <cstring>

namespace attn {
namespace {

/// Elements [begin, end) of a [n] bias.
Tensor biasBlock(const Tensor& b, int64_t begin, int64_t end)
{
    Tensor out({ end - begin });
    std::memcpy(out.data(), b.data() + begin, sizeof(float) * static_cast<size_t>(end - begin));
    return out;
}

/// GPT-2's Conv1D stores [in, out]; as a Linear [out, in], in `parts` equal blocks of output rows (fused q|k|v),
/// each followed by its bias. F16/BF16 weights stay half (one transposed copy, the parts over its rows).
std::vector<Tensor> conv1dAsLinears(WeightReader& r, const std::string& name, int64_t in, int64_t out, int64_t parts)
{
    const Tensor w = r.takeTransposedMatrix(name + ".weight", { in, out });
    const Tensor b = r.take(name + ".bias", { out });
    std::vector<Tensor> blocks;
    const int64_t rows = out / parts;
    for (int64_t i = 0; i < parts; ++i) {
        blocks.push_back(parts == 1 ? w : matrixRows(w, rowRange(i * rows, rows), name + ".weight"));
        blocks.push_back(biasBlock(b, i * rows, (i + 1) * rows));
    }
    return blocks;
}

/// GPT2LMHeadModel with add_cross_attention as the decoder half of the encoder-decoder transformer: pre-LN blocks of
/// self-attention, cross-attention (ln_cross_attn, q_attn on the decoder stream, c_attn = k|v on the encoder states)
/// and the MLP; learned positions; ln_f; the LM head tied to wte.
TransformerSeq2SeqWeights gpt2CrossDecoder(WeightReader& r, const ModelConfig& c, const std::string& pre)
{
    const int64_t D = c.hiddenSize, I = c.intermediateSize;
    TransformerSeq2SeqWeights w;
    w.preNorm = true;
    w.activation = parseActivation(c.activation, c.source);
    w.decoder.tokenEmbedding = r.takeMatrix(pre + "wte.weight", { c.vocabSize, D });
    w.decoder.positions = r.takeMatrix(pre + "wpe.weight", { c.maxPositions, D });
    auto norm = [&](const std::string& name) {
        return NormWeights { r.take(name + ".weight", { D }), r.take(name + ".bias", { D }) };
    };
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const std::string p = pre + "h." + std::to_string(l) + ".";
        DecoderLayerWeights d;
        d.selfNorm = norm(p + "ln_1");
        auto qkv = conv1dAsLinears(r, p + "attn.c_attn", D, 3 * D, 3);
        auto selfOut = conv1dAsLinears(r, p + "attn.c_proj", D, D, 1);
        d.self = { qkv[0], qkv[1], qkv[2], qkv[3], qkv[4], qkv[5], selfOut[0], selfOut[1] };
        d.crossNorm = norm(p + "ln_cross_attn");
        auto q = conv1dAsLinears(r, p + "crossattention.q_attn", D, D, 1);
        auto kv = conv1dAsLinears(r, p + "crossattention.c_attn", D, 2 * D, 2);
        auto crossOut = conv1dAsLinears(r, p + "crossattention.c_proj", D, D, 1);
        d.cross = { q[0], q[1], kv[0], kv[1], kv[2], kv[3], crossOut[0], crossOut[1] };
        d.ffNorm = norm(p + "ln_2");
        auto fc = conv1dAsLinears(r, p + "mlp.c_fc", D, I, 1);
        auto proj = conv1dAsLinears(r, p + "mlp.c_proj", I, D, 1);
        d.ff = { fc[0], fc[1], Tensor(), proj[0], proj[1] };
        for (const char* buffer :
            { "attn.bias", "attn.masked_bias", "crossattention.bias", "crossattention.masked_bias" })
            r.skip(p + buffer); // causal-mask buffers of older checkpoints
        w.decoderLayers.push_back(std::move(d));
    }
    w.decoder.finalNorm = norm(pre + "ln_f");
    w.lmHead = w.decoder.tokenEmbedding;
    return w;
}

/// `options` whose head mask is rows [begin, begin + count) of the one in `options` (kept in `part`), for one of the
/// two models this class joins; `options` itself when it has no head mask. checkHeadMask refused everything else an
/// intervention may carry.
ForwardOptions withMaskRows(const ForwardOptions& options, int64_t begin, int64_t count, Intervention& part)
{
    if (!options.intervention || options.intervention->headMask.empty()) return options;
    const Tensor& mask = options.intervention->headMask;
    const int64_t heads = mask.dim(1);
    part.headMask = Tensor(
        { count, heads }, std::vector<float>(mask.data() + begin * heads, mask.data() + (begin + count) * heads));
    ForwardOptions out = options;
    out.intervention = &part;
    return out;
}

} // namespace

VisionEncoderDecoderModel::VisionEncoderDecoderModel(
    ModelConfig config, std::shared_ptr<const VisionModel> encoder, std::shared_ptr<const EncoderDecoderModel> decoder)
    : EncoderDecoderModel(std::move(config), decoder->decoderHeadDim())
    , m_encoder(std::move(encoder))
    , m_decoder(std::move(decoder))
{
}

std::shared_ptr<const EncoderOutput> VisionEncoderDecoderModel::encode(
    const EncoderInput& input, const ForwardOptions& options) const
{
    if (input.pixels.empty() || !input.tokens.empty() || !input.features.empty())
        throw Error(
            m_config.source, "an image-to-text model encodes pixel values [channels, H, W], not tokens or features");
    checkHeadMask(options);
    auto out = std::make_shared<EncoderOutput>();
    const Seq2SeqHeadRows rows = headRows();
    Intervention encoderRows;
    StepResult image
        = m_encoder->encodeImage(input.pixels, withMaskRows(options, 0, rows.encoderLayers, encoderRows), &out->hidden);
    EncoderInput states;
    states.states = out->hidden;
    ForwardOptions projectOnly = options;
    projectOnly.wantAttention = projectOnly.wantHiddenStates = false;
    projectOnly.intervention = nullptr; // the text side only projects the states to cross-attention keys and values
    const auto projected = m_decoder->encode(states, projectOnly);
    out->attention = std::move(image.attention);
    out->hiddenStates = std::move(image.hiddenStates);
    out->queries = std::move(image.queries); // with ForwardOptions::wantQueryKeys
    out->keys = std::move(image.keys);
    out->values = std::move(image.values);
    out->crossKeys = projected->crossKeys;
    out->crossValues = projected->crossValues;
    out->seconds = image.seconds + projected->seconds;
    return out;
}

Seq2SeqStepResult VisionEncoderDecoderModel::decode(const EncoderOutput& encoding, KvCache& cache,
    const std::vector<int64_t>& tokens, const ForwardOptions& options) const
{
    checkHeadMask(options);
    // The text side's own mask rows are its decoder and cross-attention rows: this model's rows after the encoder's.
    const Seq2SeqHeadRows rows = headRows();
    Intervention decoderRows;
    return m_decoder->decode(
        encoding, cache, tokens, withMaskRows(options, rows.encoderLayers, 2 * rows.decoderLayers, decoderRows));
}

std::shared_ptr<VisionEncoderDecoderModel> loadVisionEncoderDecoder(const ModelSource& source)
{
    const VisionEncoderDecoderParts parts = readVisionEncoderDecoderParts(source.configPath);
    WeightReader r(source.weightsPath, isGpt2Conv1dWeight); // the ViT's names end otherwise
    ModelConfig encoderConfig = parts.encoder;
    encoderConfig.labels.clear(); // the encoder is a bare ViTModel: its default id2label names no classifier
    auto encoder = loadVit(encoderConfig, r, "encoder.", folderPreprocessConfig(source.folder, encoderConfig));

    const ModelConfig& d = parts.decoder;
    TransformerSeq2SeqWeights w
        = gpt2CrossDecoder(r, d, r.has("decoder.transformer.wte.weight") ? "decoder.transformer." : "decoder.");
    r.skip("decoder.lm_head.weight"); // tied to wte
    if (encoderConfig.hiddenSize != d.hiddenSize) {
        w.statesProjW = r.takeMatrix("enc_to_dec_proj.weight", { d.hiddenSize, encoderConfig.hiddenSize });
        w.statesProjB = r.take("enc_to_dec_proj.bias", { d.hiddenSize });
    }
    r.expectAllUsed();
    ModelConfig decoderConfig = d;
    decoderConfig.kind = ModelKind::EncoderDecoder;
    decoderConfig.numDecoderLayers = d.numLayers;
    decoderConfig.numDecoderHeads = d.numHeads;
    decoderConfig.numLayers = 0;
    auto decoder = makeTransformerSeq2Seq(std::move(decoderConfig), std::move(w));
    ModelConfig combined = combinedConfig(parts);
    combined.source = source.configPath;
    return std::make_shared<VisionEncoderDecoderModel>(std::move(combined), std::move(encoder), std::move(decoder));
}

} // namespace attn
