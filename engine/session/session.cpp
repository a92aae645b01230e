// SPDX-License-Identifier: MIT
#include "session/session.h"

#include "attention/attention.h"
#include "attention_source/backend_source.h"
#include "backend/backend.h"
#include "core/error.h"
#include "intervention/intervention.h"

#include <cmath>
#include <cstring>

namespace attn {

Session::Session(std::shared_ptr<const Model> model, ForwardOptions options)
    : m_model(std::move(model))
    , m_options(options) {
    if (!m_model) throw Error("session: no model");
    m_decoder = dynamic_cast<const DecoderModel*>(m_model.get());
    m_encoder = dynamic_cast<const EncoderModel*>(m_model.get());
    if (m_decoder)
        m_cache.emplace(m_decoder->newCache());
    else if (!m_encoder)
        throw Error(
            m_model->config().source, "a " + modelKindName(m_model->kind()) + " model cannot run in a session yet");
}

std::shared_ptr<const StepResult> Session::prefill(const std::vector<int64_t>& tokens,
    const std::vector<int64_t>& tokenTypes, const std::vector<uint8_t>& attentionMask) {
    if (m_encoder) {
        auto result
            = std::make_shared<const StepResult>(m_encoder->encode(tokens, tokenTypes, attentionMask, m_options));
        m_tokens = tokens;
        m_lastEncoding = result;
        m_keyKeep = attentionMask;
        return result;
    }
    if (!tokenTypes.empty() || !attentionMask.empty())
        throw Error("token types and attention masks apply to encoder models only");
    auto result = std::make_shared<const StepResult>(m_decoder->forward(*m_cache, tokens, m_options));
    m_tokens.insert(m_tokens.end(), tokens.begin(), tokens.end());
    return result;
}

std::shared_ptr<const StepResult> Session::step(int64_t token) {
    if (!m_decoder) throw Error("step: an encoder model encodes its whole input at once (use prefill)");
    return prefill({ token });
}

void Session::rewind(int64_t n) {
    if (n < 0 || n > length())
        throw Error("rewind: cannot drop " + std::to_string(n) + " of " + std::to_string(length()) + " positions");
    if (m_encoder) {
        if (n != length()) throw Error("rewind: an encoding can only be cleared as a whole");
        m_lastEncoding.reset();
    } else {
        m_cache->truncate(length() - n);
    }
    m_tokens.resize(static_cast<size_t>(length() - n));
}

void Session::reserve(int64_t positions) {
    m_tokens.reserve(static_cast<size_t>(positions));
    if (m_cache) m_cache->reserve(positions);
}

Tensor Session::attentionRows(int64_t layer, int64_t head, int64_t q0, int64_t q1) const {
    const ModelConfig& c = m_model->config();
    if (layer < 0 || layer >= c.numLayers || head < 0 || head >= c.numHeads || q0 < 0 || q1 < q0 || q1 > length())
        throw Error("attention request layer " + std::to_string(layer) + " head " + std::to_string(head) + " rows ["
            + std::to_string(q0) + ", " + std::to_string(q1) + ") is outside " + std::to_string(c.numLayers)
            + " layers, " + std::to_string(c.numHeads) + " heads, " + std::to_string(length()) + " positions");
    const int64_t T = length(), rows = q1 - q0;
    if (m_encoder && m_lastEncoding && !m_lastEncoding->attention.empty()) {
        const Tensor& all = m_lastEncoding->attention[static_cast<size_t>(layer)];
        Tensor out({ rows, T });
        std::memcpy(out.data(), all.data() + (head * T + q0) * T, sizeof(float) * rows * T);
        return out;
    }
    Tensor out = *attentionSource()->rows(layer, head, q0, q1);
    const std::span<const float> scale = headScaleRow(m_options, layer); // the masked probabilities, as captured
    if (scale.empty()) return out;
    out = std::move(out).reshaped({ 1, rows, T });
    scaleHeads(out, scale.subspan(static_cast<size_t>(head), 1));
    return std::move(out).reshaped({ rows, T });
}

bool Session::canDeriveAttention(const ModelConfig& c, std::string* why) {
    const char* reason = c.attnLogitSoftcap > 0.0 ? "its attention scores are soft-capped"
        : c.alternatingWindow                     ? "its sliding window applies to some layers only"
        : c.ropeScaling.type == RopeScaling::Type::Dynamic
        ? "its dynamic RoPE base depends on the sequence length"
        : nullptr;
    if (reason && why) *why = c.modelType + ": " + reason;
    return !reason;
}

void Session::requireDerivable() const {
    if (std::string why; !canDeriveAttention(m_model->config(), &why))
        throw Error("attention request: tiles cannot be derived for " + why + "; capture the full attention instead");
    if (m_options.intervention && !m_options.intervention->keyMasks.empty())
        throw Error("attention request: tiles cannot be derived under key masks; capture the full attention instead");
}

std::shared_ptr<const AttentionSource> Session::attentionSource(std::shared_ptr<const void> owner) const {
    requireDerivable();
    AttentionOptions options;
    if (m_encoder) {
        if (!m_lastEncoding || m_lastEncoding->queries.empty())
            throw Error("attention request: the encoding was run without attention capture");
        options.mask.keyKeep = m_keyKeep;
        return std::make_shared<const AttentionSource>(
            std::make_shared<const OwnedQueryKeys>(m_lastEncoding->queries, m_lastEncoding->keys), options,
            m_options.backend);
    }
    return std::make_shared<const AttentionSource>(
        std::make_shared<const CachedQueryKeys>(*m_cache, std::move(owner)), decoderDerivation(), m_options.backend);
}

AttentionOptions Session::decoderDerivation() const {
    if (length() == 0) throw Error("attention request: the session holds no positions yet");
    const ModelConfig& c = m_model->config();
    AttentionOptions options;
    options.mask = decoderMask(c);
    // The forward's own scale (llama_model.cpp): gemma's query_pre_attn_scalar, else 1/sqrt(head_dim).
    if (c.queryPreAttnScalar > 0) options.scale = static_cast<float>(1.0 / std::sqrt(c.queryPreAttnScalar));
    return options;
}

MaskSpec Session::decoderMask(const ModelConfig& config) {
    MaskSpec mask;
    mask.causal = true;
    mask.slidingWindow = config.slidingWindow;
    return mask;
}

std::shared_ptr<const AttentionSource> Session::attentionSourceCopy(
    int64_t positions, std::shared_ptr<Backend> backend) const
{
    if (!m_cache) throw Error("attention request: only a decoder's positions can be copied");
    requireDerivable();
    return attentionSourceOn(
        std::move(backend), OwnedQueryKeys::copyOf(CachedQueryKeys(*m_cache), positions), decoderDerivation());
}

} // namespace attn
