// SPDX-License-Identifier: MIT
#include "model/model_config.h"

#include "core/checked.h"
#include "core/error.h"
#include "core/input_file.h"
#include "io/json_input.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

using nlohmann::json;

namespace attn {
namespace {

/// Reads typed fields from one config object; every error names the file and the field.
class Fields {
public:
    Fields(const json& j, std::string source)
        : m_j(j)
        , m_source(std::move(source))
    {
    }

    bool has(const char* key) const { return m_j.contains(key) && !m_j[key].is_null(); }

    int64_t integer(const char* key) const
    {
        if (!has(key))
            throw Error(m_source, std::string("missing required field \"") + key + "\"");
        return optInteger(key, 0);
    }
    int64_t optInteger(const char* key, int64_t fallback) const
    {
        if (!has(key))
            return fallback;
        const auto& v = m_j[key];
        if (v.is_number_integer())
            return v.get<int64_t>();
        // (The range test first: casting a double beyond int64 is undefined.)
        if (v.is_number_float() && std::fabs(v.get<double>()) < 9.2e18
            && v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>())))
            return static_cast<int64_t>(v.get<double>());
        if (v.is_array() && !v.empty() && v[0].is_number_integer()) // e.g. eos_token_id: [1, 2]
            return v[0].get<int64_t>();
        throw Error(m_source, std::string("field \"") + key + "\" must be an integer, got " + describeJson(v));
    }
    double optNumber(const char* key, double fallback) const
    {
        if (!has(key))
            return fallback;
        if (!m_j[key].is_number())
            throw Error(m_source, std::string("field \"") + key + "\" must be a number, got " + describeJson(m_j[key]));
        return m_j[key].get<double>();
    }
    bool optBool(const char* key, bool fallback) const
    {
        if (!has(key))
            return fallback;
        if (!m_j[key].is_boolean())
            throw Error(
                m_source, std::string("field \"") + key + "\" must be true or false, got " + describeJson(m_j[key]));
        return m_j[key].get<bool>();
    }
    std::string optString(const char* key, const std::string& fallback) const
    {
        if (!has(key))
            return fallback;
        if (!m_j[key].is_string())
            throw Error(m_source, std::string("field \"") + key + "\" must be a string, got " + describeJson(m_j[key]));
        return m_j[key].get<std::string>();
    }

private:
    const json& m_j;
    std::string m_source;
};

void readDecoderLlama(const Fields& f, ModelConfig& c)
{
    c.kind = ModelKind::Decoder;
    c.numLayers = f.integer("num_hidden_layers");
    c.numHeads = f.integer("num_attention_heads");
    c.numKvHeads = f.optInteger("num_key_value_heads", c.numHeads);
    c.hiddenSize = f.integer("hidden_size");
    c.headDim = f.optInteger("head_dim", 0);
    c.intermediateSize = f.integer("intermediate_size");
    c.vocabSize = f.integer("vocab_size");
    c.maxPositions = f.optInteger("max_position_embeddings", 2048);
    c.ropeStyle = RopeStyle::RotateHalf;
    c.ropeTheta = f.optNumber("rope_theta", 10000.0);
    c.partialRotaryFactor = f.optNumber("partial_rotary_factor", 1.0);
    c.normEps = f.optNumber("rms_norm_eps", 1e-6);
    c.activation = f.optString("hidden_act", "silu");
    c.tieWordEmbeddings = f.optBool("tie_word_embeddings", false);
    c.attentionBias = f.optBool("attention_bias", c.modelType == "qwen2");
    if (c.modelType == "mistral" || (c.modelType == "qwen2" && f.optBool("use_sliding_window", false)))
        c.slidingWindow = f.optInteger("sliding_window", 0);
}

void readEncDecBartLike(const Fields& f, ModelConfig& c)
{
    c.kind = ModelKind::EncoderDecoder;
    c.hiddenSize = f.integer("d_model");
    c.numLayers = f.integer("encoder_layers");
    c.numDecoderLayers = f.integer("decoder_layers");
    c.numHeads = f.integer("encoder_attention_heads");
    c.numDecoderHeads = f.integer("decoder_attention_heads");
    c.intermediateSize = f.integer("encoder_ffn_dim");
    c.decoderIntermediateSize = f.integer("decoder_ffn_dim");
    c.vocabSize = f.integer("vocab_size");
    c.maxPositions = f.optInteger("max_position_embeddings", 0);
    c.activation = f.optString("activation_function", "gelu");
    c.scaleEmbedding = f.optBool("scale_embedding", false);
    c.normEps = 1e-5;
}

} // namespace

std::string modelKindName(ModelKind k)
{
    switch (k) {
    case ModelKind::Decoder: return "decoder";
    case ModelKind::Encoder: return "encoder";
    case ModelKind::EncoderDecoder: return "encoder-decoder";
    case ModelKind::Vision: return "vision";
    case ModelKind::Speech: return "speech";
    }
    return "?";
}

const std::vector<std::string>& supportedModelTypes()
{
    static const std::vector<std::string> types = { "gpt2", "bert", "llama", "mistral", "qwen2", "vit", "deit",
        "marian", "bart", "t5", "whisper" };
    return types;
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
    const Fields f(j, source);
    ModelConfig c;
    c.source = source;
    c.modelType = f.optString("model_type", "");
    if (c.modelType.empty())
        throw Error(source, "missing required field \"model_type\"");
    if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty()
        && j["architectures"][0].is_string())
        c.architecture = j["architectures"][0].get<std::string>();

    const std::string& t = c.modelType;
    if (t == "gpt2") {
        c.kind = ModelKind::Decoder;
        c.numLayers = f.integer("n_layer");
        c.numHeads = f.integer("n_head");
        c.numKvHeads = c.numHeads;
        c.hiddenSize = f.integer("n_embd");
        c.intermediateSize = f.optInteger("n_inner", mulOrThrow(4, c.hiddenSize, source, "4 * n_embd"));
        c.vocabSize = f.integer("vocab_size");
        c.maxPositions = f.optInteger("n_positions", 1024);
        c.normEps = f.optNumber("layer_norm_epsilon", 1e-5);
        c.activation = f.optString("activation_function", "gelu_new");
        c.tieWordEmbeddings = true;
        c.attentionBias = true;
        if (f.optBool("scale_attn_by_inverse_layer_idx", false) || f.optBool("reorder_and_upcast_attn", false))
            throw Error(source, "gpt2 options scale_attn_by_inverse_layer_idx / reorder_and_upcast_attn are not supported");
    } else if (t == "bert") {
        c.kind = ModelKind::Encoder;
        c.numLayers = f.integer("num_hidden_layers");
        c.numHeads = f.integer("num_attention_heads");
        c.numKvHeads = c.numHeads;
        c.hiddenSize = f.integer("hidden_size");
        c.intermediateSize = f.optInteger("intermediate_size", mulOrThrow(4, c.hiddenSize, source, "4 * hidden_size"));
        c.vocabSize = f.integer("vocab_size");
        c.maxPositions = f.optInteger("max_position_embeddings", 512);
        c.typeVocabSize = f.optInteger("type_vocab_size", 2);
        c.normEps = f.optNumber("layer_norm_eps", 1e-12);
        c.activation = f.optString("hidden_act", "gelu");
        c.tieWordEmbeddings = true;
        c.attentionBias = true;
        const std::string pos = f.optString("position_embedding_type", "absolute");
        if (pos != "absolute")
            throw Error(source, "bert position_embedding_type \"" + pos + "\" is not supported (only \"absolute\")");
    } else if (t == "llama" || t == "mistral" || t == "qwen2") {
        readDecoderLlama(f, c);
    } else if (t == "vit" || t == "deit") {
        c.kind = ModelKind::Vision;
        c.numLayers = f.integer("num_hidden_layers");
        c.numHeads = f.integer("num_attention_heads");
        c.numKvHeads = c.numHeads;
        c.hiddenSize = f.integer("hidden_size");
        c.intermediateSize = f.integer("intermediate_size");
        c.imageSize = f.integer("image_size");
        c.patchSize = f.integer("patch_size");
        c.numChannels = f.optInteger("num_channels", 3);
        c.normEps = f.optNumber("layer_norm_eps", 1e-12);
        c.activation = f.optString("hidden_act", "gelu");
        c.attentionBias = f.optBool("qkv_bias", true);
        if (c.patchSize <= 0 || c.imageSize % c.patchSize != 0)
            throw Error(source, "image_size " + std::to_string(c.imageSize) + " is not a multiple of patch_size "
                    + std::to_string(c.patchSize));
        if (j.contains("id2label") && j["id2label"].is_object()) {
            for (const auto& [k, v] : j["id2label"].items()) {
                size_t id = 0;
                try {
                    id = std::stoul(k);
                } catch (const std::exception&) {
                    throw Error(source, "id2label key \"" + k + "\" is not an integer");
                }
                if (id > 1000000)
                    throw Error(source, "id2label key " + k + " is out of range");
                if (c.labels.size() <= id)
                    c.labels.resize(id + 1);
                if (!v.is_string())
                    throw Error(source, "id2label value for " + k + " must be a string, got " + describeJson(v));
                c.labels[id] = v.get<std::string>();
            }
        }
    } else if (t == "marian" || t == "bart") {
        readEncDecBartLike(f, c);
        c.numKvHeads = c.numHeads;
    } else if (t == "whisper") {
        readEncDecBartLike(f, c);
        c.kind = ModelKind::Speech;
        c.numKvHeads = c.numHeads;
        c.numMelBins = f.integer("num_mel_bins");
        c.maxPositions = f.integer("max_source_positions");
        c.maxTargetPositions = f.integer("max_target_positions");
    } else if (t == "t5") {
        c.kind = ModelKind::EncoderDecoder;
        c.hiddenSize = f.integer("d_model");
        c.headDim = f.integer("d_kv");
        c.numHeads = f.integer("num_heads");
        c.numDecoderHeads = c.numHeads;
        c.numKvHeads = c.numHeads;
        c.numLayers = f.integer("num_layers");
        c.numDecoderLayers = f.optInteger("num_decoder_layers", c.numLayers);
        c.intermediateSize = f.integer("d_ff");
        c.decoderIntermediateSize = c.intermediateSize;
        c.vocabSize = f.integer("vocab_size");
        c.relativeBuckets = f.optInteger("relative_attention_num_buckets", 32);
        c.relativeMaxDistance = f.optInteger("relative_attention_max_distance", 128);
        c.normEps = f.optNumber("layer_norm_epsilon", 1e-6);
        const std::string proj = f.optString("feed_forward_proj", "relu");
        c.gatedFeedForward = proj.rfind("gated-", 0) == 0;
        c.activation = c.gatedFeedForward ? proj.substr(6) : proj;
        c.scaleAttention = false;
        c.tieWordEmbeddings = f.optBool("tie_word_embeddings", true);
    } else {
        std::string list;
        for (const auto& s : supportedModelTypes())
            list += (list.empty() ? "" : ", ") + s;
        throw Error(source, "unsupported model_type \"" + t + "\"; supported: " + list);
    }

    c.bosTokenId = f.optInteger("bos_token_id", -1);
    c.eosTokenId = f.optInteger("eos_token_id", -1);
    c.padTokenId = f.optInteger("pad_token_id", -1);
    c.decoderStartTokenId = f.optInteger("decoder_start_token_id", -1);

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
    if (c.numDecoderHeads > 0 && c.hiddenSize % c.numDecoderHeads != 0 && t != "t5")
        throw Error(source, "d_model " + std::to_string(c.hiddenSize) + " is not divisible by decoder_attention_heads "
                + std::to_string(c.numDecoderHeads));
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
    if (kind == ModelKind::EncoderDecoder || kind == ModelKind::Speech) {
        j["num_decoder_layers"] = numDecoderLayers;
        j["num_decoder_heads"] = numDecoderHeads;
        j["decoder_intermediate_size"] = decoderIntermediateSize;
        j["scale_embedding"] = scaleEmbedding;
    }
    if (ropeStyle != RopeStyle::None) {
        j["rope"] = { { "style", ropeStyle == RopeStyle::RotateHalf ? "rotate_half" : "interleaved" },
            { "theta", ropeTheta }, { "partial_rotary_factor", partialRotaryFactor } };
    }
    if (slidingWindow > 0)
        j["sliding_window"] = slidingWindow;
    if (modelType == "t5") {
        j["relative_attention_num_buckets"] = relativeBuckets;
        j["relative_attention_max_distance"] = relativeMaxDistance;
        j["gated_feed_forward"] = gatedFeedForward;
    }
    if (kind == ModelKind::Vision) {
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
