// SPDX-License-Identifier: MIT
#include "model/vision_encoder_decoder_config.h"

#include "core/error.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace attn {
namespace {

const nlohmann::json& subConfig(const nlohmann::json& config, const char* key, const std::string& source)
{
    if (!config.contains(key) || !config[key].is_object())
        throw Error(source, std::string("a vision-encoder-decoder config needs an \"") + key + "\" object");
    return config[key];
}

int64_t optionalId(const nlohmann::json& j, const char* key, int64_t fallback)
{
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& v = j[key];
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_array() && !v.empty() && v[0].is_number_integer()) return v[0].get<int64_t>();
    throw Error(std::string("field \"") + key + "\" must be a token id, got " + v.dump());
}

} // namespace

VisionEncoderDecoderParts parseVisionEncoderDecoderParts(const nlohmann::json& config, const std::string& source)
{
    VisionEncoderDecoderParts p;
    p.source = source;
    const nlohmann::json& enc = subConfig(config, "encoder", source);
    const nlohmann::json& dec = subConfig(config, "decoder", source);
    p.encoder = parseHfConfigText(enc.dump(), source + " (encoder)");
    p.decoder = parseHfConfigText(dec.dump(), source + " (decoder)");
    if (p.encoder.kind != ModelKind::Vision)
        throw Error(source, "the encoder is " + p.encoder.modelType + "; image captioning needs a vit or deit encoder");
    if (p.decoder.modelType != "gpt2")
        throw Error(source, "the decoder is " + p.decoder.modelType + "; this build captions with a gpt2 decoder");
    if (!dec.value("add_cross_attention", false))
        throw Error(source, "the gpt2 decoder has no cross-attention (add_cross_attention is false)");
    if (dec.contains("cross_attention_hidden_size") && !dec["cross_attention_hidden_size"].is_null()
        && dec["cross_attention_hidden_size"] != p.decoder.hiddenSize)
        throw Error(source,
            "cross_attention_hidden_size " + dec["cross_attention_hidden_size"].dump() + " differs from the gpt2 width "
                + std::to_string(p.decoder.hiddenSize) + ": not supported");
    try {
        p.decoderStartTokenId = optionalId(config, "decoder_start_token_id", p.decoder.bosTokenId);
        p.eosTokenId = optionalId(config, "eos_token_id", p.decoder.eosTokenId);
        p.padTokenId = optionalId(config, "pad_token_id", p.decoder.padTokenId);
    } catch (const Error& e) {
        throw Error(source, e.what());
    }
    if (config.contains("architectures") && config["architectures"].is_array() && !config["architectures"].empty()
        && config["architectures"][0].is_string())
        p.architecture = config["architectures"][0].get<std::string>();
    return p;
}

VisionEncoderDecoderParts readVisionEncoderDecoderParts(const std::string& configPath)
{
    std::ifstream in(configPath);
    if (!in) throw Error(configPath, "cannot open config");
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text.str());
    } catch (const std::exception& e) {
        throw Error(configPath, std::string("malformed JSON: ") + e.what());
    }
    return parseVisionEncoderDecoderParts(j, configPath);
}

ModelConfig combinedConfig(const VisionEncoderDecoderParts& parts)
{
    ModelConfig c = parts.encoder;
    const ModelConfig& d = parts.decoder;
    c.source = parts.source;
    c.modelType = "vision-encoder-decoder";
    c.architecture = parts.architecture;
    c.kind = ModelKind::ImageToText;
    c.numDecoderLayers = d.numLayers;
    c.numDecoderHeads = d.numHeads;
    c.decoderIntermediateSize = d.intermediateSize;
    c.vocabSize = d.vocabSize;
    c.maxTargetPositions = d.maxPositions;
    c.labels.clear();
    c.bosTokenId = d.bosTokenId;
    c.eosTokenId = parts.eosTokenId;
    c.padTokenId = parts.padTokenId;
    c.decoderStartTokenId = parts.decoderStartTokenId;
    return c;
}

} // namespace attn
