// SPDX-License-Identifier: MIT
// llama.cpp's metadata keys (llama-arch.cpp LLM_KV_*) -> ModelConfig.
#include "core/error.h"
#include "io/gguf.h"
#include "model/gguf_model.h"
#include "quant/dequantize.h"

#include <cmath>
#include <filesystem>

namespace attn {
namespace {

int64_t positive(const GgufFile& g, const std::string& key, int64_t fallback)
{
    const int64_t v = g.getInt(key).value_or(fallback);
    if (v < 0 || v > (int64_t(1) << 31)) throw Error(g.path(), key + " = " + std::to_string(v) + " is out of range");
    return v;
}

/// llama.cpp's gemma2 hparams (llama-model.cpp LLM_ARCH_GEMMA2): soft-capping, sliding windows on the even layers
/// (set_swa_pattern(2), as HF's `not bool(layer_idx % 2)`), and the query scale that llama.cpp derives from the
/// model's size, since convert_hf_to_gguf.py writes no query_pre_attn_scalar: n_embd / n_head for the 46-layer 27B,
/// head_dim (attention.key_length) otherwise, as the released checkpoints' configs say.
void readGemma2(const GgufFile& g, ModelConfig& c)
{
    c.attnLogitSoftcap = g.getFloat("gemma2.attn_logit_softcapping").value_or(0.0);
    c.finalLogitSoftcap = g.getFloat("gemma2.final_logit_softcapping").value_or(0.0);
    if (c.attnLogitSoftcap < 0 || c.finalLogitSoftcap < 0)
        throw Error(g.path(), "gemma2 soft-capping values must not be negative");
    c.alternatingWindow = true;
    c.queryPreAttnScalar
        = static_cast<double>(c.numLayers == 46 && c.numHeads > 0 ? c.hiddenSize / c.numHeads : c.headDim);
}

/// One RoPE factor list: a float tensor of one row (rope_factors_long/short.weight, rope_freqs.weight: one factor per
/// rotary pair).
std::vector<double> ropeFactors(const GgufFile& g, const GgufTensorInfo& t)
{
    if (t.ne.size() != 1 || (t.type != GgmlType::F32 && t.type != GgmlType::F16))
        throw Error(g.path(), t.name + " must be one row of F32 or F16 factors");
    std::vector<float> row(static_cast<size_t>(t.rowLength()));
    dequantizeRow(t.type, g.tensorData(t), row.data(), t.rowLength());
    return { row.begin(), row.end() };
}

/// longrope (Phi-3 / Phi-3.5 long-context files): convert_hf_to_gguf.py Phi3MiniModel writes the config's long and
/// short factor lists as the tensors rope_factors_long/short.weight, the trained length as
/// rope.scaling.original_context_length and the cos/sin factor as rope.scaling.attn_factor (sqrt(1 + ln(s) / ln(orig))
/// for s = context_length / orig > 1). The list is chosen as transformers chooses it, by the length of the sequence
/// (long once it exceeds the original length), so a GGUF gives what its HF checkpoint gives; llama.cpp instead
/// chooses by the context size it is started with (long for every prompt once n_ctx exceeds the original length).
void readLongRope(const GgufFile& g, const std::string& p, ModelConfig& c)
{
    const GgufTensorInfo* longs = g.findTensor("rope_factors_long.weight");
    const GgufTensorInfo* shorts = g.findTensor("rope_factors_short.weight");
    if (!longs && !shorts) return;
    if (!longs || !shorts) throw Error(g.path(), "has only one of rope_factors_long/short.weight; longrope needs both");
    RopeScaling& r = c.ropeScaling;
    r.type = RopeScaling::Type::LongRope;
    r.longFactor = ropeFactors(g, *longs);
    r.shortFactor = ropeFactors(g, *shorts);
    r.originalMaxPositions = positive(g, p + "rope.scaling.original_context_length", 0);
    r.attentionFactor = g.getFloat(p + "rope.scaling.attn_factor").value_or(0.0); // 0: the formula above
    if (r.longFactor.size() != r.shortFactor.size() || r.originalMaxPositions == 0 || r.attentionFactor < 0)
        throw Error(g.path(),
            "longrope needs rope_factors_long/short.weight of one length, " + p
                + "rope.scaling.original_context_length > 0 and a non-negative " + p + "rope.scaling.attn_factor");
}

/// YaRN as convert_hf_to_gguf.py writes it (TextModel.set_gguf_parameters for rope_type yarn): rope.scaling.factor,
/// rope.scaling.original_context_length, and where the config has them rope.scaling.yarn_beta_fast / yarn_beta_slow
/// (llama.cpp's defaults 32 and 1 otherwise) and rope.scaling.yarn_attn_factor (the config's attention_factor: the
/// whole cos/sin factor; absent: 0.1 ln(factor) + 1, the magnitude ggml's rope_yarn applies). The ramp is ggml's
/// rope_yarn_corr_dims and rope_yarn_ramp, which is transformers' with truncation. An extrapolation factor other than
/// llama.cpp's 1 for YaRN, and DeepSeek's yarn_log_multiplier, have no transformers counterpart and are refused.
void readYarn(const GgufFile& g, const std::string& p, ModelConfig& c)
{
    RopeScaling& r = c.ropeScaling;
    r.type = RopeScaling::Type::Yarn;
    r.factor = g.getFloat(p + "rope.scaling.factor").value_or(0.0);
    r.originalMaxPositions = positive(g, p + "rope.scaling.original_context_length", c.maxPositions);
    r.betaFast = g.getFloat(p + "rope.scaling.yarn_beta_fast").value_or(32.0);
    r.betaSlow = g.getFloat(p + "rope.scaling.yarn_beta_slow").value_or(1.0);
    r.attentionFactor = g.getFloat(p + "rope.scaling.yarn_attn_factor").value_or(0.0);
    if (!(r.factor > 0) || r.originalMaxPositions <= 0 || !(r.betaFast > 0) || !(r.betaSlow > 0)
        || r.attentionFactor < 0)
        throw Error(g.path(),
            "yarn needs a positive " + p + "rope.scaling.factor and original_context_length, positive yarn_beta_fast "
                + "and yarn_beta_slow and a non-negative yarn_attn_factor");
    if (g.getFloat(p + "rope.scaling.yarn_ext_factor").value_or(1.0) != 1.0)
        throw Error(g.path(), p + "rope.scaling.yarn_ext_factor other than 1 is not supported");
    if (g.find(p + "rope.scaling.yarn_log_multiplier"))
        throw Error(g.path(), p + "rope.scaling.yarn_log_multiplier (DeepSeek's mscale) is not supported");
}

/// The other RoPE scalings convert_hf_to_gguf.py LlamaModel writes: `linear` as rope.scaling.type and
/// rope.scaling.factor (set_gguf_parameters), Llama 3.1's bands as rope_freqs.weight, one divisor per rotary pair
/// (generate_extra_tensors: 1 above the high-frequency wavelength, factor below the low one, 1 / ((1 - s) / factor + s)
/// between), and `yarn` (readYarn). Other types are left for the loader to refuse.
void readScaling(const GgufFile& g, const std::string& p, ModelConfig& c)
{
    RopeScaling& r = c.ropeScaling;
    const GgufTensorInfo* freqs = g.findTensor("rope_freqs.weight");
    const std::string type = g.getString(p + "rope.scaling.type").value_or("none");
    const bool linear = type == "linear", yarn = type == "yarn";
    if (r.type != RopeScaling::Type::None && (freqs || linear || yarn))
        throw Error(g.path(), "has longrope factors and another RoPE scaling; only one can apply");
    if (freqs && (linear || yarn))
        throw Error(g.path(), "has both rope_freqs.weight and " + type + " RoPE scaling; only one can apply");
    if (freqs) {
        r.type = RopeScaling::Type::Frequencies;
        r.frequencyFactors = ropeFactors(g, *freqs);
        for (const double f : r.frequencyFactors)
            if (!(f > 0)) throw Error(g.path(), "rope_freqs.weight holds a factor that is not positive");
    } else if (linear) {
        r.type = RopeScaling::Type::Linear;
        r.factor = g.getFloat(p + "rope.scaling.factor").value_or(0.0);
        if (!(r.factor > 0)) throw Error(g.path(), p + "rope.scaling.factor must be positive for linear scaling");
    } else if (yarn) {
        readYarn(g, p, c);
    }
}

} // namespace

ModelConfig ggufModelConfig(const GgufFile& g)
{
    ModelConfig c;
    c.source = g.path();
    const auto arch = g.getString("general.architecture");
    if (!arch) throw Error(g.path(), "no general.architecture key; not a llama.cpp model file");
    const std::string p = *arch + ".";
    c.modelType = *arch;
    c.architecture = "GGUF " + *arch;
    if (const auto name = g.getString("general.name")) c.architecture += " (" + *name + ")";
    c.kind = ModelKind::Decoder;
    c.numLayers = positive(g, p + "block_count", 0);
    c.hiddenSize = positive(g, p + "embedding_length", 0);
    c.numHeads = positive(g, p + "attention.head_count", 0);
    c.numKvHeads = positive(g, p + "attention.head_count_kv", c.numHeads);
    c.headDim = positive(g, p + "attention.key_length", c.numHeads > 0 ? c.hiddenSize / c.numHeads : 0);
    c.intermediateSize = positive(g, p + "feed_forward_length", 0);
    c.maxPositions = positive(g, p + "context_length", 2048);
    const auto tokens = g.find("tokenizer.ggml.tokens");
    const auto* tokenList = tokens ? tokens->asArray() : nullptr;
    const GgufTensorInfo* embed = g.findTensor("token_embd.weight");
    c.vocabSize = positive(g, p + "vocab_size",
        embed && embed->ne.size() == 2 ? embed->ne[1]
            : tokenList                ? static_cast<int64_t>(tokenList->size())
                                       : 0);
    c.normEps = g.getFloat(p + "attention.layer_norm_rms_epsilon")
                    .value_or(g.getFloat(p + "attention.layer_norm_epsilon").value_or(1e-5));
    c.ropeTheta = g.getFloat(p + "rope.freq_base").value_or(10000.0);
    const bool gpt2 = *arch == "gpt2"; // learned positions, GELU (tanh form)
    c.ropeStyle = gpt2 ? RopeStyle::None : RopeStyle::RotateHalf; // llama's Q/K permutation is undone on load
    // Checked as config.json's are: NaN or 0 here ran, and every logit came out NaN.
    if (c.ropeStyle != RopeStyle::None && !(c.ropeTheta > 1.0 && std::isfinite(c.ropeTheta)))
        throw Error(g.path(), p + "rope.freq_base must be a finite number above 1, got " + std::to_string(c.ropeTheta));
    if (!(c.normEps >= 0 && std::isfinite(c.normEps)))
        throw Error(
            g.path(), "the norm epsilon must be a finite number of at least 0, got " + std::to_string(c.normEps));
    if (c.headDim > 0) {
        const int64_t rotary = positive(g, p + "rope.dimension_count", c.headDim);
        // Checked here: a rotation wider than the head, or of no pair, was refused only by the first forward.
        if (c.ropeStyle != RopeStyle::None && (rotary < 2 || rotary > c.headDim))
            throw Error(g.path(),
                p + "rope.dimension_count = " + std::to_string(rotary) + " is outside 2.." + std::to_string(c.headDim)
                    + " (the head size)");
        c.partialRotaryFactor = static_cast<double>(rotary) / static_cast<double>(c.headDim);
    }
    c.slidingWindow = positive(g, p + "attention.sliding_window", 0);
    readLongRope(g, p, c);
    readScaling(g, p, c);
    // llama.cpp's gemma graph: embeddings times sqrt(width), GeGLU with the tanh GELU; its norm weights are stored as
    // 1 + w (convert_hf_to_gguf.py GemmaModel adds the 1), which is how NormWeights keeps them.
    const bool gemma = *arch == "gemma" || *arch == "gemma2";
    c.activation = gpt2 ? "gelu_new" : gemma ? "gelu_pytorch_tanh" : "silu";
    c.scaleEmbedding = gemma;
    if (*arch == "gemma2") readGemma2(g, c);
    c.numExperts = positive(g, p + "expert_count", 0);
    c.expertsPerToken = positive(g, p + "expert_used_count", 0);
    if (c.numExperts > 1024 || (c.numExperts > 0 && (c.expertsPerToken < 1 || c.expertsPerToken > c.numExperts)))
        throw Error(g.path(),
            p + "expert_used_count = " + std::to_string(c.expertsPerToken) + " must be in 1.." + p + "expert_count ("
                + std::to_string(c.numExperts) + ", at most 1024)");
    c.attentionBias = g.findTensor("blk.0.attn_q.bias") != nullptr;
    c.tieWordEmbeddings = !g.tensors().empty() && !g.findTensor("output.weight");
    c.capabilities = g.tensors().empty() ? 0u : static_cast<uint32_t>(kGenerate); // a vocab-only file only tokenizes
    const auto id = [&](const char* key) {
        const int64_t v = g.getInt(std::string("tokenizer.ggml.") + key).value_or(-1);
        return v == 0xFFFFFFFFll ? -1 : v; // llama.cpp writes "none" as uint32 -1
    };
    c.bosTokenId = id("bos_token_id");
    c.eosTokenId = id("eos_token_id");
    c.padTokenId = id("padding_token_id");
    return c;
}

ModelSource probeGguf(const std::string& path)
{
    const GgufFile g(path);
    ModelSource s;
    s.format = ModelFormat::Gguf;
    s.weightsPath = path;
    const std::filesystem::path p(path);
    s.folder = p.has_parent_path() ? p.parent_path().string() : ".";
    s.config = ggufModelConfig(g);
    return s;
}

} // namespace attn
