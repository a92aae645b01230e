// SPDX-License-Identifier: MIT
#include "model/encdec_transformer.h"

#include "attention/attention.h"
#include "attention/position_bias.h"
#include "backend/backend.h"
#include "core/error.h"
#include "model/cached_attention.h"

#include <chrono>
#include <cmath>
#include <cstring>

namespace attn {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Tensor project(const Tensor& x, const Tensor& w, const Tensor& b)
{
    return linear(x, w, b.empty() ? nullptr : &b);
}

void normInPlace(Tensor& x, const NormWeights& n, double eps)
{
    if (n.bias.empty())
        x = rmsNorm(x, n.weight, eps);
    else
        layerNormInPlace(x, n.weight, n.bias, eps);
}

Tensor feedForward(const Tensor& x, const FeedForwardWeights& f, Activation activation)
{
    Tensor h = project(x, f.inW, f.inB);
    applyActivation(h, activation);
    if (!f.gateW.empty()) multiplyInPlace(h, linear(x, f.gateW));
    return project(h, f.outW, f.outB);
}

/// One residual sublayer: pre-norm x += f(norm(x)), post-norm x = norm(x + f(x)).
template <class Fn> void residual(Tensor& x, const NormWeights& norm, bool preNorm, double eps, Fn&& sublayer)
{
    if (preNorm) {
        Tensor h = x;
        normInPlace(h, norm, eps);
        addInPlace(x, sublayer(h));
    } else {
        addInPlace(x, sublayer(x));
        normInPlace(x, norm, eps);
    }
}

AttentionResult runAttention(
    Backend* backend, const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options)
{
    return backend ? backend->attention(q, k, v, options) : multiHeadAttention(q, k, v, options);
}

/// Causal self-attention over the cache with a per-head additive bias (T5's relative positions) and an explicit
/// score scale, one query head at a time so the cached keys are read in place. Needs as many KV heads as query heads.
Tensor biasedCachedSelfAttention(KvCache& cache, int64_t layer, const Tensor& q, const Tensor& k, const Tensor& v,
    const Tensor& bias, float scale, Backend* backend, Tensor* probs)
{
    const int64_t past = cache.length();
    cache.append(layer, q, k, v);
    const int64_t heads = q.dim(0), n = q.dim(1), d = q.dim(2), dv = v.dim(2), total = past + n;
    AttentionOptions options;
    options.scale = scale;
    options.mask.causal = true;
    options.mask.queryOffset = past;
    options.wantProbs = probs != nullptr;
    Tensor qHead({ 1, n, d }), biasHead({ 1, n, total });
    options.mask.bias = &biasHead;
    Tensor merged({ n, heads * dv });
    if (probs) *probs = Tensor({ heads, n, total });
    for (int64_t h = 0; h < heads; ++h) {
        std::memcpy(qHead.data(), q.data() + h * n * d, sizeof(float) * n * d);
        std::memcpy(biasHead.data(), bias.data() + h * n * total, sizeof(float) * n * total);
        const AttentionResult r = runAttention(backend, qHead, cache.keys(layer, h), cache.values(layer, h), options);
        for (int64_t row = 0; row < n; ++row)
            std::memcpy(merged.data() + row * heads * dv + h * dv, r.output.data() + row * dv, sizeof(float) * dv);
        if (probs) std::memcpy(probs->data() + h * n * total, r.probs.data(), sizeof(float) * n * total);
    }
    return merged;
}

/// [frames, channels] -> conv1d (kernel k, padding k/2, stride) -> [outFrames, outChannels] via im2col.
Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& b, int64_t stride)
{
    const int64_t frames = x.dim(0), channels = x.dim(1), outChannels = w.dim(0), kernel = w.dim(2);
    const int64_t pad = kernel / 2, outFrames = (frames + 2 * pad - kernel) / stride + 1;
    Tensor cols({ outFrames, channels * kernel });
    for (int64_t t = 0; t < outFrames; ++t)
        for (int64_t c = 0; c < channels; ++c)
            for (int64_t j = 0; j < kernel; ++j) {
                const int64_t src = t * stride + j - pad;
                cols.data()[(t * channels + c) * kernel + j]
                    = src >= 0 && src < frames ? x.data()[src * channels + c] : 0.0f;
            }
    return linear(cols, w.reshaped({ outChannels, channels * kernel }), &b);
}

class TransformerSeq2Seq final : public EncoderDecoderModel {
public:
    TransformerSeq2Seq(ModelConfig config, int64_t decoderHeadDim, TransformerSeq2SeqWeights weights)
        : EncoderDecoderModel(std::move(config), decoderHeadDim)
        , m_w(std::move(weights))
    {
    }

    std::shared_ptr<const EncoderOutput> encode(const EncoderInput& input, const ForwardOptions& options) const override
    {
        const auto start = std::chrono::steady_clock::now();
        const ModelConfig& c = m_config;
        auto out = std::make_shared<EncoderOutput>();
        if (!m_w.audio.present() && !input.features.empty())
            throw Error(c.source, "this text model encodes token ids, not audio features");
        Tensor x
            = m_w.audio.present() ? audioEmbeddings(input) : tokenEmbeddings(m_w.encoder, input.tokens, 0, "source");
        const int64_t S = x.dim(0);
        if (m_w.encoder.embeddingNorm.present()) normInPlace(x, m_w.encoder.embeddingNorm, c.normEps);
        if (options.wantHiddenStates) out->hiddenStates.push_back(x);

        AttentionOptions attn;
        attn.scale = m_w.attentionScale;
        attn.wantProbs = options.wantAttention;
        Tensor bias;
        if (m_w.encoder.positionKind == PositionKind::RelativeBuckets) {
            bias = t5PositionBias(m_w.encoder.relativeBias, S, S, 0, true, c.relativeBuckets, c.relativeMaxDistance);
            attn.mask.bias = &bias;
        }
        const int64_t H = c.numHeads, dh = c.headDim;
        for (size_t l = 0; l < m_w.encoderLayers.size(); ++l) {
            const EncoderLayerWeights& w = m_w.encoderLayers[l];
            residual(x, w.selfNorm, m_w.preNorm, c.normEps, [&](const Tensor& h) {
                const ProjectionWeights& p = w.self;
                AttentionResult a = runAttention(options.backend, splitHeads(project(h, p.qW, p.qB), H, dh),
                    splitHeads(project(h, p.kW, p.kB), H, dh), splitHeads(project(h, p.vW, p.vB), H, dh), attn);
                if (options.wantAttention) out->attention.push_back(std::move(a.probs));
                return project(mergeHeads(a.output), p.oW, p.oB);
            });
            residual(x, w.ffNorm, m_w.preNorm, c.normEps,
                [&](const Tensor& h) { return feedForward(h, w.ff, m_w.activation); });
            if (options.wantHiddenStates && l + 1 < m_w.encoderLayers.size()) out->hiddenStates.push_back(x);
            reportLayerDone(options, static_cast<int64_t>(l + 1), static_cast<int64_t>(m_w.encoderLayers.size()));
        }
        if (m_w.encoder.finalNorm.present()) normInPlace(x, m_w.encoder.finalNorm, c.normEps);
        if (options.wantHiddenStates) out->hiddenStates.push_back(x);
        const int64_t Hd = c.numDecoderHeads, dd = m_decoderHeadDim;
        for (const DecoderLayerWeights& w : m_w.decoderLayers) {
            out->crossKeys.push_back(splitHeads(project(x, w.cross.kW, w.cross.kB), Hd, dd));
            out->crossValues.push_back(splitHeads(project(x, w.cross.vW, w.cross.vB), Hd, dd));
        }
        out->hidden = std::move(x);
        out->seconds = secondsSince(start);
        return out;
    }

    Seq2SeqStepResult decode(const EncoderOutput& encoding, KvCache& cache, const std::vector<int64_t>& tokens,
        const ForwardOptions& options) const override
    {
        const auto start = std::chrono::steady_clock::now();
        const ModelConfig& c = m_config;
        if (encoding.crossKeys.size() != m_w.decoderLayers.size())
            throw Error("decode: the encoding has " + std::to_string(encoding.crossKeys.size())
                + " cross-attention layers, the decoder " + std::to_string(m_w.decoderLayers.size()));
        const int64_t n = static_cast<int64_t>(tokens.size()), past = cache.length();
        Seq2SeqStepResult result;
        result.firstPosition = past;
        result.tokens = tokens;
        Tensor x = tokenEmbeddings(m_w.decoder, tokens, past, "decoder");
        if (m_w.decoder.embeddingNorm.present()) normInPlace(x, m_w.decoder.embeddingNorm, c.normEps);
        if (options.wantHiddenStates) result.hiddenStates.push_back(x);

        const bool relative = m_w.decoder.positionKind == PositionKind::RelativeBuckets;
        const Tensor selfBias = relative ? t5PositionBias(m_w.decoder.relativeBias, n, past + n, past, false,
                                    c.relativeBuckets, c.relativeMaxDistance)
                                         : Tensor();
        AttentionOptions crossOptions;
        crossOptions.scale = m_w.attentionScale;
        crossOptions.wantProbs = options.wantAttention;
        const int64_t H = c.numDecoderHeads, dh = m_decoderHeadDim;
        try {
            for (size_t l = 0; l < m_w.decoderLayers.size(); ++l) {
                const DecoderLayerWeights& w = m_w.decoderLayers[l];
                const auto layer = static_cast<int64_t>(l);
                residual(x, w.selfNorm, m_w.preNorm, c.normEps, [&](const Tensor& h) {
                    const ProjectionWeights& p = w.self;
                    const Tensor q = splitHeads(project(h, p.qW, p.qB), H, dh);
                    const Tensor k = splitHeads(project(h, p.kW, p.kB), H, dh);
                    const Tensor v = splitHeads(project(h, p.vW, p.vB), H, dh);
                    Tensor probs;
                    Tensor* probsOut = options.wantAttention ? &probs : nullptr;
                    const Tensor heads = relative
                        ? biasedCachedSelfAttention(
                            cache, layer, q, k, v, selfBias, m_w.attentionScale, options.backend, probsOut)
                        : cachedSelfAttention(cache, layer, q, k, v, 0, options.backend, probsOut);
                    if (probsOut) result.attention.push_back(std::move(probs));
                    return project(heads, p.oW, p.oB);
                });
                residual(x, w.crossNorm, m_w.preNorm, c.normEps, [&](const Tensor& h) {
                    const ProjectionWeights& p = w.cross;
                    AttentionResult a = runAttention(options.backend, splitHeads(project(h, p.qW, p.qB), H, dh),
                        encoding.crossKeys[l], encoding.crossValues[l], crossOptions);
                    if (options.wantAttention) result.crossAttention.push_back(std::move(a.probs));
                    return project(mergeHeads(a.output), p.oW, p.oB);
                });
                residual(x, w.ffNorm, m_w.preNorm, c.normEps,
                    [&](const Tensor& h) { return feedForward(h, w.ff, m_w.activation); });
                if (options.wantHiddenStates && l + 1 < m_w.decoderLayers.size()) result.hiddenStates.push_back(x);
                reportLayerDone(options, layer + 1, static_cast<int64_t>(m_w.decoderLayers.size()));
            }
            cache.commit(n);
        } catch (...) {
            cache.rollback();
            throw;
        }
        if (m_w.decoder.finalNorm.present()) normInPlace(x, m_w.decoder.finalNorm, c.normEps);
        if (options.wantHiddenStates) result.hiddenStates.push_back(x);
        if (m_w.logitScale != 1.0f)
            for (float& value : x.storage())
                value *= m_w.logitScale;
        result.logits = project(x, m_w.lmHead, m_w.finalLogitsBias);
        result.seconds = secondsSince(start);
        return result;
    }

private:
    /// Scaled token embeddings plus absolute positions first .. first + n - 1 (Table stacks).
    Tensor tokenEmbeddings(
        const StackWeights& stack, const std::vector<int64_t>& tokens, int64_t first, const std::string& what) const
    {
        const int64_t n = static_cast<int64_t>(tokens.size());
        if (n == 0) throw Error(what + ": no tokens");
        Tensor x = gatherRows(stack.tokenEmbedding, tokens, what + " token");
        if (m_w.embeddingScale != 1.0f)
            for (float& value : x.storage())
                value *= m_w.embeddingScale;
        if (stack.positionKind == PositionKind::Table) addPositions(x, stack, first, what);
        return x;
    }

    static void addPositions(Tensor& x, const StackWeights& stack, int64_t first, const std::string& what)
    {
        const int64_t n = x.dim(0), D = x.dim(1), limit = stack.positions.dim(0) - stack.positionOffset;
        if (first + n > limit)
            throw Error(what + " sequence of " + std::to_string(first + n) + " positions exceeds the model's limit of "
                + std::to_string(limit));
        const float* table = stack.positions.data() + (first + stack.positionOffset) * D;
        for (int64_t i = 0; i < n * D; ++i)
            x.data()[i] += table[i];
    }

    /// Whisper: features [mel, frames] -> two convolutions with GELU -> [frames / 2, D] + stored positions.
    Tensor audioEmbeddings(const EncoderInput& input) const
    {
        const int64_t mel = m_config.numMelBins;
        if (!input.tokens.empty() || input.features.empty())
            throw Error(m_config.source,
                "this speech model encodes log-mel features [" + std::to_string(mel) + ", frames], not token ids");
        if (input.features.rank() != 2 || input.features.dim(0) != mel)
            throw Error("input features have shape " + shapeToString(input.features.shape()) + ", expected ["
                + std::to_string(mel) + ", frames]");
        Tensor x = conv1d(transposed(input.features), m_w.audio.conv1W, m_w.audio.conv1B, 1);
        applyActivation(x, Activation::Gelu);
        x = conv1d(x, m_w.audio.conv2W, m_w.audio.conv2B, 2);
        applyActivation(x, Activation::Gelu);
        addPositions(x, m_w.encoder, 0, "encoder");
        return x;
    }

    TransformerSeq2SeqWeights m_w;
};

} // namespace

std::shared_ptr<EncoderDecoderModel> makeTransformerSeq2Seq(ModelConfig config, TransformerSeq2SeqWeights weights)
{
    // The plain cached self-attention scales by 1/sqrt(head_dim); only the relative-bias path takes another scale.
    if (weights.attentionScale != 0.0f && weights.decoder.positionKind != PositionKind::RelativeBuckets)
        throw Error(config.source, "a custom attention scale needs relative position buckets");
    if (weights.decoderLayers.empty() || config.numDecoderHeads <= 0)
        throw Error(config.source, "an encoder-decoder needs decoder layers and heads");
    const int64_t decoderHeadDim = weights.decoderLayers[0].self.qW.dim(0) / config.numDecoderHeads;
    return std::make_shared<TransformerSeq2Seq>(std::move(config), decoderHeadDim, std::move(weights));
}

} // namespace attn
