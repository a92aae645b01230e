// SPDX-License-Identifier: MIT
#include "model/encdec_transformer.h"

#include "attention/attention.h"
#include "attention/position_bias.h"
#include "backend/backend.h"
#include "core/error.h"
#include "intervention/intervention.h"
#include "model/cached_attention.h"
#include "model/kv_cache.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>

namespace attn {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const Tensor* optional(const Tensor& t) { return t.empty() ? nullptr : &t; }

Value project(Stream& s, const Value& x, const Tensor& w, const Tensor& b) { return s.linear(x, w, optional(b)); }

/// RMSNorm when the norm has no bias (T5), else LayerNorm.
Value normed(Stream& s, const Value& x, const NormWeights& n, double eps)
{
    return n.bias.empty() ? s.rmsNorm(x, n.weight, eps) : s.layerNorm(x, n.weight, n.bias, eps);
}

Value feedForward(Stream& s, const Value& x, const FeedForwardWeights& f, Activation activation)
{
    const Value h = project(s, x, f.inW, f.inB);
    s.activate(h, activation);
    if (!f.gateW.empty()) s.multiply(h, s.linear(x, f.gateW, nullptr));
    return project(s, h, f.outW, f.outB);
}

/// One residual sublayer: pre-norm x += f(norm(x)), post-norm x = norm(x + f(x)).
template <class Fn> void residual(Stream& s, Value& x, const NormWeights& norm, bool preNorm, double eps, Fn&& sublayer)
{
    if (preNorm) {
        s.add(x, sublayer(normed(s, x, norm, eps)));
    } else {
        s.add(x, sublayer(x));
        x = normed(s, x, norm, eps);
    }
}

/// Room for one tensor per layer, filled in place by Stream::read (which needs stable addresses).
void slots(std::vector<Tensor>& v, bool wanted, size_t count)
{
    v.clear();
    if (wanted) v.resize(count);
}

/// [frames, channels] -> conv1d (kernel k, padding k/2, stride) -> [outFrames, outChannels] via im2col; w is the
/// kernel [outChannels, channels, k] flattened to [outChannels, channels * k].
Tensor conv1d(const Tensor& x, const Tensor& w, const Tensor& b, int64_t kernel, int64_t stride)
{
    const int64_t frames = x.dim(0), channels = x.dim(1);
    const int64_t pad = kernel / 2, outFrames = (frames + 2 * pad - kernel) / stride + 1;
    Tensor cols({ outFrames, channels * kernel });
    for (int64_t t = 0; t < outFrames; ++t)
        for (int64_t c = 0; c < channels; ++c)
            for (int64_t j = 0; j < kernel; ++j) {
                const int64_t src = t * stride + j - pad;
                cols.data()[(t * channels + c) * kernel + j]
                    = src >= 0 && src < frames ? x.data()[src * channels + c] : 0.0f;
            }
    return linear(cols, w, &b);
}

/// Adds absolute positions first .. first + n - 1 of a Table stack to x [n, D]; the rows are gathered, so a learned
/// table may stay packed half.
void addPositions(Tensor& x, const StackWeights& stack, int64_t first, const std::string& what)
{
    const int64_t n = x.dim(0), limit = stack.positions.dim(0) - stack.positionOffset;
    if (first + n > limit)
        throw Error(what + " sequence of " + std::to_string(first + n) + " positions exceeds the model's limit of "
            + std::to_string(limit));
    std::vector<int64_t> rows(static_cast<size_t>(n));
    std::iota(rows.begin(), rows.end(), first + stack.positionOffset);
    addInPlace(x, gatherRows(stack.positions, rows, what + " position"));
}

} // namespace

TransformerSeq2Seq::TransformerSeq2Seq(ModelConfig config, int64_t decoderHeadDim, TransformerSeq2SeqWeights weights)
    : EncoderDecoderModel(std::move(config), decoderHeadDim)
    , m_w(std::move(weights))
{
}

std::shared_ptr<const EncoderOutput> TransformerSeq2Seq::encode(
    const EncoderInput& input, const ForwardOptions& options) const
{
    const auto start = std::chrono::steady_clock::now();
    const ModelConfig& c = m_config;
    const bool given = m_w.encoder.tokenEmbedding.empty() && !m_w.audio.present();
    if (given != !input.states.empty())
        throw Error(c.source,
            given ? "this decoder reads encoder states computed by another model"
                  : "this model computes its own encoder states");
    if (!m_w.audio.present() && !input.features.empty())
        throw Error(c.source, "this text model encodes token ids, not audio features");
    const Tensor embedded = given ? givenStates(input.states)
        : m_w.audio.present()     ? audioEmbeddings(input)
                                  : tokenEmbeddings(m_w.encoder, input.tokens, 0, "source");
    const int64_t S = embedded.dim(0);
    checkHeadMask(options);
    AttentionOptions attn;
    attn.scale = m_w.attentionScale;
    Tensor bias;
    if (m_w.encoder.positionKind == PositionKind::RelativeBuckets) {
        bias = t5PositionBias(m_w.encoder.relativeBias, S, S, 0, true, c.relativeBuckets, c.relativeMaxDistance);
        attn.mask.bias = &bias;
    }
    const int64_t H = c.numHeads, dh = c.headDim, Hd = c.numDecoderHeads, dd = m_decoderHeadDim;
    const size_t layers = m_w.encoderLayers.size(), decoderLayers = m_w.decoderLayers.size();
    auto out = std::make_shared<EncoderOutput>();
    runStream(options.backend, m_weightsLifetime, [&](Stream& s) {
        *out = EncoderOutput {}; // a rerun after a device failure starts afresh
        s.cancelInsideProducts(cancelPoll(options));
        slots(out->attention, options.wantAttention, layers);
        slots(out->hiddenStates, options.wantHiddenStates, layers + 1);
        for (auto* kept : { &out->queries, &out->keys, &out->values })
            slots(*kept, options.wantQueryKeys, layers);
        out->crossKeys.resize(decoderLayers);
        out->crossValues.resize(decoderLayers);
        Value x = s.input(embedded);
        if (m_w.encoder.embeddingNorm.present()) x = normed(s, x, m_w.encoder.embeddingNorm, c.normEps);
        if (options.wantHiddenStates) s.read(x, &out->hiddenStates[0]);
        if (!m_w.statesProjW.empty()) x = s.linear(x, m_w.statesProjW, &m_w.statesProjB);
        for (size_t l = 0; l < layers; ++l) {
            const EncoderLayerWeights& w = m_w.encoderLayers[l];
            residual(s, x, w.selfNorm, m_w.preNorm, c.normEps, [&](const Value& h) {
                const ProjectionWeights& p = w.self;
                const Value q = s.splitHeads(project(s, h, p.qW, p.qB), H, dh, 0);
                const Value k = s.splitHeads(project(s, h, p.kW, p.kB), H, dh, 0);
                const Value v = s.splitHeads(project(s, h, p.vW, p.vB), H, dh, 0);
                if (options.wantQueryKeys) {
                    s.read(q, &out->queries[l]);
                    s.read(k, &out->keys[l]);
                    s.read(v, &out->values[l]);
                }
                const Value heads = s.attention(q, k, v, withHeadScale(attn, options, static_cast<int64_t>(l)),
                    options.wantAttention ? &out->attention[l] : nullptr);
                return project(s, heads, p.oW, p.oB);
            });
            residual(s, x, w.ffNorm, m_w.preNorm, c.normEps,
                [&](const Value& h) { return feedForward(s, h, w.ff, m_w.activation); });
            if (options.wantHiddenStates && l + 1 < layers) s.read(x, &out->hiddenStates[l + 1]);
            s.flush();
            reportLayerDone(options, static_cast<int64_t>(l + 1), static_cast<int64_t>(layers));
        }
        if (m_w.encoder.finalNorm.present()) x = normed(s, x, m_w.encoder.finalNorm, c.normEps);
        if (options.wantHiddenStates) s.read(x, &out->hiddenStates[layers]);
        for (size_t l = 0; l < decoderLayers; ++l) {
            const ProjectionWeights& cross = m_w.decoderLayers[l].cross;
            s.take(s.splitHeads(project(s, x, cross.kW, cross.kB), Hd, dd, 0), &out->crossKeys[l]);
            s.take(s.splitHeads(project(s, x, cross.vW, cross.vB), Hd, dd, 0), &out->crossValues[l]);
        }
        s.take(std::move(x), &out->hidden);
        s.flush();
    });
    out->seconds = secondsSince(start);
    return out;
}

Seq2SeqStepResult TransformerSeq2Seq::decode(const EncoderOutput& encoding, KvCache& cache,
    const std::vector<int64_t>& tokens, const ForwardOptions& options) const
{
    const auto start = std::chrono::steady_clock::now();
    const ModelConfig& c = m_config;
    if (encoding.crossKeys.size() != m_w.decoderLayers.size())
        throw Error("decode: the encoding has " + std::to_string(encoding.crossKeys.size())
            + " cross-attention layers, the decoder " + std::to_string(m_w.decoderLayers.size()));
    const int64_t n = static_cast<int64_t>(tokens.size()), past = cache.length();
    const Tensor embedded = tokenEmbeddings(m_w.decoder, tokens, past, "decoder");
    const bool relative = m_w.decoder.positionKind == PositionKind::RelativeBuckets;
    const Tensor selfBias = relative
        ? t5PositionBias(m_w.decoder.relativeBias, n, past + n, past, false, c.relativeBuckets, c.relativeMaxDistance)
        : Tensor();
    checkHeadMask(options);
    const Seq2SeqHeadRows rows = headRows();
    CachedAttentionSpec selfSpec;
    if (relative) {
        selfSpec.scale = m_w.attentionScale;
        selfSpec.bias = &selfBias;
    }
    AttentionOptions crossOptions;
    crossOptions.scale = m_w.attentionScale;
    const int64_t H = c.numDecoderHeads, dh = m_decoderHeadDim;
    const size_t layers = m_w.decoderLayers.size();
    Seq2SeqStepResult result;
    runStream(options.backend, m_weightsLifetime, [&](Stream& s) {
        result = Seq2SeqStepResult {}; // a rerun after a device failure starts afresh
        s.cancelInsideProducts(cancelPoll(options));
        result.firstPosition = past;
        result.tokens = tokens;
        slots(result.attention, options.wantAttention, layers);
        slots(result.crossAttention, options.wantAttention, layers);
        slots(result.crossQueries, options.wantQueryKeys, layers);
        slots(result.hiddenStates, options.wantHiddenStates, layers + 1);
        Value x = s.input(embedded);
        try {
            if (m_w.decoder.embeddingNorm.present()) x = normed(s, x, m_w.decoder.embeddingNorm, c.normEps);
            if (options.wantHiddenStates) s.read(x, &result.hiddenStates[0]);
            for (size_t l = 0; l < layers; ++l) {
                const DecoderLayerWeights& w = m_w.decoderLayers[l];
                residual(s, x, w.selfNorm, m_w.preNorm, c.normEps, [&](const Value& h) {
                    const ProjectionWeights& p = w.self;
                    CachedAttentionSpec layerSpec = selfSpec;
                    layerSpec.headScale = headScaleRow(options, rows.decoderSelfRow(static_cast<int64_t>(l)));
                    const Value heads = s.cachedSelfAttention(cache, static_cast<int64_t>(l),
                        s.splitHeads(project(s, h, p.qW, p.qB), H, dh, 0),
                        s.splitHeads(project(s, h, p.kW, p.kB), H, dh, 0),
                        s.splitHeads(project(s, h, p.vW, p.vB), H, dh, 0), layerSpec,
                        options.wantAttention ? &result.attention[l] : nullptr);
                    return project(s, heads, p.oW, p.oB);
                });
                residual(s, x, w.crossNorm, m_w.preNorm, c.normEps, [&](const Value& h) {
                    const ProjectionWeights& p = w.cross;
                    const Value q = s.splitHeads(project(s, h, p.qW, p.qB), H, dh, 0);
                    if (options.wantQueryKeys) s.read(q, &result.crossQueries[l]);
                    const Value heads = s.attention(q, s.constant(encoding.crossKeys[l], encoding.lifetime),
                        s.constant(encoding.crossValues[l], encoding.lifetime),
                        withHeadScale(crossOptions, options, rows.crossRow(static_cast<int64_t>(l))),
                        options.wantAttention ? &result.crossAttention[l] : nullptr);
                    return project(s, heads, p.oW, p.oB);
                });
                residual(s, x, w.ffNorm, m_w.preNorm, c.normEps,
                    [&](const Value& h) { return feedForward(s, h, w.ff, m_w.activation); });
                if (options.wantHiddenStates && l + 1 < layers) s.read(x, &result.hiddenStates[l + 1]);
                s.flush();
                reportLayerDone(options, static_cast<int64_t>(l + 1), static_cast<int64_t>(layers));
            }
            if (m_w.decoder.finalNorm.present()) x = normed(s, x, m_w.decoder.finalNorm, c.normEps);
            if (options.wantHiddenStates) s.read(x, &result.hiddenStates[layers]);
            if (m_w.logitScale != 1.0f) s.scale(x, m_w.logitScale);
            s.linearTo(x, m_w.lmHead, optional(m_w.finalLogitsBias), &result.logits);
            s.flush();
            cache.commit(n);
        } catch (...) {
            cache.rollback();
            throw;
        }
    });
    result.seconds = secondsSince(start);
    return result;
}

Tensor TransformerSeq2Seq::tokenEmbeddings(
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

Tensor TransformerSeq2Seq::givenStates(const Tensor& states) const
{
    const int64_t width = m_w.statesProjW.empty() ? m_config.hiddenSize : m_w.statesProjW.dim(1);
    if (states.rank() != 2 || states.dim(0) == 0 || states.dim(1) != width)
        throw Error(m_config.source,
            "encoder states have shape " + shapeToString(states.shape()) + ", expected [S, " + std::to_string(width)
                + "]");
    return states;
}

Tensor TransformerSeq2Seq::audioEmbeddings(const EncoderInput& input) const
{
    const int64_t mel = m_config.numMelBins;
    if (!input.tokens.empty() || input.features.empty())
        throw Error(m_config.source,
            "this speech model encodes log-mel features [" + std::to_string(mel) + ", frames], not token ids");
    if (input.features.rank() != 2 || input.features.dim(0) != mel)
        throw Error("input features have shape " + shapeToString(input.features.shape()) + ", expected ["
            + std::to_string(mel) + ", frames]");
    Tensor x = conv1d(transposed(input.features), m_w.audio.conv1W, m_w.audio.conv1B, AudioFrontEndWeights::kKernel, 1);
    applyActivation(x, Activation::Gelu);
    x = conv1d(x, m_w.audio.conv2W, m_w.audio.conv2B, AudioFrontEndWeights::kKernel, 2);
    applyActivation(x, Activation::Gelu);
    addPositions(x, m_w.encoder, 0, "encoder");
    return x;
}

std::shared_ptr<TransformerSeq2Seq> makeTransformerSeq2Seq(ModelConfig config, TransformerSeq2SeqWeights weights)
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
