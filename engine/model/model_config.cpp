// SPDX-License-Identifier: MIT
#include "model/model_config.h"

#include "core/checked.h"
#include "core/error.h"
#include "core/input_file.h"
#include "io/json_input.h"
#include "model/config_fields.h"
#include "model/family_registry.h"

#include <nlohmann/json.hpp>

#include <cmath>

using nlohmann::json;

namespace attn {

std::string modelKindName(ModelKind k)
{
    switch (k) {
    case ModelKind::Decoder: return "decoder";
    case ModelKind::Encoder: return "encoder";
    case ModelKind::EncoderDecoder: return "encoder-decoder";
    case ModelKind::Vision: return "vision";
    case ModelKind::Speech: return "speech";
    case ModelKind::ImageToText: return "image-to-text";
    }
    return "?";
}

std::vector<std::string> capabilityNames(uint32_t capabilities)
{
    static const char* const names[] = { "generate", "encode", "translate", "align", "classify", "caption" };
    std::vector<std::string> out;
    for (uint32_t bit = 0; bit < std::size(names); ++bit)
        if (capabilities & (1u << bit))
            out.emplace_back(names[bit]);
    return out;
}

std::string ropeScalingName(RopeScaling::Type type)
{
    switch (type) {
    case RopeScaling::Type::None: return "none";
    case RopeScaling::Type::Linear: return "linear";
    case RopeScaling::Type::Dynamic: return "dynamic";
    case RopeScaling::Type::Llama3: return "llama3";
    case RopeScaling::Type::LongRope: return "longrope";
    case RopeScaling::Type::Frequencies: return "rope_freqs";
    case RopeScaling::Type::Yarn: return "yarn";
    }
    return "?";
}

ModelConfig parseHfConfig(const std::string& path)
{
    return parseHfConfigText(readInputFile(path, file_caps::kConfigJson, "config"), path);
}

ModelConfig parseHfConfigText(const std::string& text, const std::string& source)
{
    const json j = parseUntrustedJson(text, source, "JSON");
    if (!j.is_object())
        throw Error(source, "config is not a JSON object");
    const ConfigFields f(j, source);
    ModelConfig c;
    c.source = source;
    c.modelType = f.optString("model_type", "");
    if (c.modelType.empty())
        throw Error(source, "missing required field \"model_type\"");
    if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty()
        && j["architectures"][0].is_string())
        c.architecture = j["architectures"][0].get<std::string>();

    const ModelFamily& family = familyOf(c.modelType, source);
    if (!family.readConfig)
        throw Error(source, "model_type \"" + c.modelType + "\" is a file format, not a config.json model");
    c.capabilities = family.capabilities; // a family's reader may narrow them for one model type
    family.readConfig(f, c);

    // The family's reader may have set them under its own names (rnn_seq2seq's sos_id / eos_id).
    c.bosTokenId = f.optInteger("bos_token_id", c.bosTokenId);
    c.eosTokenId = f.optInteger("eos_token_id", c.eosTokenId);
    c.padTokenId = f.optInteger("pad_token_id", c.padTokenId);
    c.decoderStartTokenId = f.optInteger("decoder_start_token_id", c.decoderStartTokenId);

    auto positive = [&](int64_t v, const char* what) {
        if (v <= 0)
            throw Error(source, std::string(what) + " must be positive, got " + std::to_string(v));
    };
    positive(c.numHeads, "number of attention heads");
    positive(c.hiddenSize, "hidden size");
    if (c.kind != ModelKind::Vision)
        positive(c.vocabSize, "vocab_size");
    if (c.numLayers < 0)
        throw Error(source, "number of layers must not be negative, got " + std::to_string(c.numLayers));
    if (c.headDim == 0) {
        if (c.hiddenSize % c.numHeads != 0)
            throw Error(source, "hidden size " + std::to_string(c.hiddenSize) + " is not divisible by the number of heads "
                    + std::to_string(c.numHeads));
        c.headDim = c.hiddenSize / c.numHeads;
    }
    // The attention's width sizes the projections, whose row counts the loaders add and multiply (phi3's fused
    // [q | k | v] holds three): 2^31 rows is past every model and keeps that arithmetic inside 64 bits. The RNN
    // family's one "head" is its hidden state, which its loader checks in its own words.
    const auto width = checkedMul(c.numHeads, c.headDim);
    if (family.selfAttention && (c.headDim <= 0 || !width || *width > (int64_t(1) << 31)))
        throw Error(source,
            std::to_string(c.numHeads) + " heads of head_dim " + std::to_string(c.headDim)
                + ": head_dim must be positive and the heads at most 2^31 rows in all");
    positive(c.numKvHeads, "num_key_value_heads");
    if (c.numHeads % c.numKvHeads != 0)
        throw Error(source, "num_attention_heads " + std::to_string(c.numHeads) + " is not a multiple of num_key_value_heads "
                + std::to_string(c.numKvHeads));
    if (c.ropeStyle != RopeStyle::None && !(c.ropeTheta > 1.0 && std::isfinite(c.ropeTheta)))
        throw Error(source, "rope_theta must be a finite number above 1, got " + std::to_string(c.ropeTheta));
    if (c.kind == ModelKind::Vision && (c.imageSize <= 0 || c.imageSize > 16384))
        throw Error(source, "image_size must be in 1..16384, got " + std::to_string(c.imageSize));
    if (c.ropeStyle != RopeStyle::None && (c.partialRotaryFactor <= 0 || c.partialRotaryFactor > 1))
        throw Error(source, "partial_rotary_factor must be in (0, 1]");
    if (c.slidingWindow < 0)
        throw Error(source, "sliding_window must not be negative");
    return c;
}

std::string ModelConfig::toJson(int indent) const
{
    json j;
    j["source"] = source;
    j["model_type"] = modelType;
    j["architecture"] = architecture;
    j["kind"] = modelKindName(kind);
    j["num_layers"] = numLayers;
    j["num_heads"] = numHeads;
    j["num_kv_heads"] = numKvHeads;
    j["hidden_size"] = hiddenSize;
    j["head_dim"] = headDim;
    j["intermediate_size"] = intermediateSize;
    j["vocab_size"] = vocabSize;
    j["max_positions"] = maxPositions;
    j["norm_eps"] = normEps;
    j["activation"] = activation;
    j["tie_word_embeddings"] = tieWordEmbeddings;
    j["attention_bias"] = attentionBias;
    if (kind == ModelKind::EncoderDecoder || kind == ModelKind::Speech || kind == ModelKind::ImageToText) {
        j["num_decoder_layers"] = numDecoderLayers;
        j["num_decoder_heads"] = numDecoderHeads;
        j["decoder_intermediate_size"] = decoderIntermediateSize;
        j["scale_embedding"] = scaleEmbedding;
    }
    j["capabilities"] = capabilityNames(capabilities);
    if (ropeStyle != RopeStyle::None) {
        j["rope"] = { { "style", ropeStyle == RopeStyle::RotateHalf ? "rotate_half" : "interleaved" },
            { "theta", ropeTheta }, { "partial_rotary_factor", partialRotaryFactor },
            { "scaling", ropeScalingName(ropeScaling.type) } };
        if (ropeScaling.type != RopeScaling::Type::None)
            j["rope"]["factor"] = ropeScaling.factor;
    }
    if (slidingWindow > 0) {
        j["sliding_window"] = slidingWindow;
        if (alternatingWindow)
            j["sliding_window_layers"] = "even";
    }
    if (parallelResidual)
        j["parallel_residual"] = true;
    if (postNorm)
        j["post_norm"] = true;
    if (clipQkv > 0)
        j["clip_qkv"] = clipQkv;
    if (attnLogitSoftcap > 0)
        j["attn_logit_softcapping"] = attnLogitSoftcap;
    if (finalLogitSoftcap > 0)
        j["final_logit_softcapping"] = finalLogitSoftcap;
    if (queryPreAttnScalar > 0)
        j["query_pre_attn_scalar"] = queryPreAttnScalar; // a GGUF gemma2's comes from llama.cpp's rule, not the file
    if (numExperts > 0) {
        j["num_experts"] = numExperts;
        j["experts_per_token"] = expertsPerToken;
    }
    if (modelType == "t5") {
        j["relative_attention_num_buckets"] = relativeBuckets;
        j["relative_attention_max_distance"] = relativeMaxDistance;
        j["gated_feed_forward"] = gatedFeedForward;
    }
    if (kind == ModelKind::Vision || kind == ModelKind::ImageToText) {
        j["image_size"] = imageSize;
        j["patch_size"] = patchSize;
        j["num_channels"] = numChannels;
        j["num_labels"] = labels.size();
    }
    if (kind == ModelKind::Speech) {
        j["num_mel_bins"] = numMelBins;
        j["max_target_positions"] = maxTargetPositions;
    }
    if (modelType == "bert")
        j["type_vocab_size"] = typeVocabSize;
    j["bos_token_id"] = bosTokenId;
    j["eos_token_id"] = eosTokenId;
    j["pad_token_id"] = padTokenId;
    if (decoderStartTokenId >= 0)
        j["decoder_start_token_id"] = decoderStartTokenId;
    return j.dump(indent);
}

} // namespace attn
