// SPDX-License-Identifier: MIT
#include "model/families/decoder_config.h"

namespace attn::families {

namespace {

/// transformers' yarn keys (_compute_yarn_parameters / _validate_yarn_parameters): factor (when absent:
/// max_position_embeddings / original_max_position_embeddings, as transformers 4.57+), original_max_position_embeddings
/// (default max_position_embeddings), attention_factor, beta_fast (32), beta_slow (1), mscale, mscale_all_dim and
/// truncate (true). Zero for a beta counts as unset, as transformers' `or 32`.
void readYarn(const ConfigFields& f, const ConfigFields& s, RopeScaling& r)
{
    r.type = RopeScaling::Type::Yarn;
    const int64_t maxPositions = f.optInteger("max_position_embeddings", 0);
    r.originalMaxPositions = s.optInteger("original_max_position_embeddings", maxPositions);
    r.factor = s.optNumber("factor",
        r.originalMaxPositions > 0 ? static_cast<double>(maxPositions) / static_cast<double>(r.originalMaxPositions)
                                   : 0.0);
    r.attentionFactor = s.optNumber("attention_factor", 0.0);
    r.betaFast = s.optNumber("beta_fast", 0.0);
    r.betaSlow = s.optNumber("beta_slow", 0.0);
    if (r.betaFast == 0.0) r.betaFast = 32.0;
    if (r.betaSlow == 0.0) r.betaSlow = 1.0;
    r.mscale = s.optNumber("mscale", 0.0);
    r.mscaleAllDim = s.optNumber("mscale_all_dim", 0.0);
    r.truncate = s.optBool("truncate", true);
    if (!(r.factor > 0.0) || r.originalMaxPositions <= 0 || r.attentionFactor < 0.0 || !(r.betaFast > 0.0)
        || !(r.betaSlow > 0.0))
        throw Error(f.source(),
            "rope_scaling yarn needs a positive factor and original_max_position_embeddings, positive beta_fast and "
            "beta_slow and a non-negative attention_factor");
}

} // namespace

void readRopeScaling(const ConfigFields& f, ModelConfig& c)
{
    if (!f.has("rope_scaling")) return;
    const ConfigFields s = f.object("rope_scaling");
    const std::string type = s.optString("rope_type", s.optString("type", "default"));
    RopeScaling& r = c.ropeScaling;
    const auto positiveFactor = [&] {
        r.factor = s.optNumber("factor", 0.0);
        if (!(r.factor > 0.0)) throw Error(f.source(), "rope_scaling " + type + " needs a positive factor");
    };
    if (type == "default") {
        r.type = RopeScaling::Type::None;
    } else if (type == "linear") {
        r.type = RopeScaling::Type::Linear;
        positiveFactor();
    } else if (type == "dynamic") {
        r.type = RopeScaling::Type::Dynamic;
        positiveFactor();
    } else if (type == "llama3") {
        r.type = RopeScaling::Type::Llama3;
        positiveFactor();
        r.lowFreqFactor = s.optNumber("low_freq_factor", 1.0);
        r.highFreqFactor = s.optNumber("high_freq_factor", 4.0);
        r.originalMaxPositions = s.integer("original_max_position_embeddings");
        if (!(r.highFreqFactor > r.lowFreqFactor) || r.lowFreqFactor <= 0 || r.originalMaxPositions <= 0)
            throw Error(f.source(),
                "rope_scaling llama3 needs 0 < low_freq_factor < high_freq_factor and a positive "
                "original_max_position_embeddings");
    } else if (type == "longrope" || type == "su") {
        r.type = RopeScaling::Type::LongRope;
        r.shortFactor = s.optNumbers("short_factor");
        r.longFactor = s.optNumbers("long_factor");
        r.attentionFactor = s.optNumber("attention_factor", 0.0);
        r.originalMaxPositions
            = s.optInteger("original_max_position_embeddings", f.optInteger("original_max_position_embeddings", 0));
        if (r.originalMaxPositions <= 0 || r.shortFactor.size() != r.longFactor.size() || r.shortFactor.empty())
            throw Error(f.source(),
                "rope_scaling longrope needs short_factor and long_factor lists of one length and "
                "original_max_position_embeddings");
    } else if (type == "yarn") {
        readYarn(f, s, r);
    } else {
        throw Error(f.source(),
            "rope_scaling type \"" + type + "\" is not supported (supported: linear, dynamic, llama3, longrope, yarn)");
    }
}

void readRotaryDecoder(const ConfigFields& f, ModelConfig& c)
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
    readRopeScaling(f, c);
}

} // namespace attn::families
