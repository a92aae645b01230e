// SPDX-License-Identifier: MIT
#include "session/caption_run.h"

#include "core/error.h"
#include "intervention/intervention.h"
#include "model/model_loader.h"
#include "tokenizer/tokenizer_loader.h"

#include <cmath>
#include <cstring>

namespace attn {

std::string Captioner::text(const std::vector<int64_t>& ids) const
{
    return tokenizer->decode(ids, true);
}

std::string Captioner::word(int64_t id) const
{
    if (tokenizer->isSpecial(id)) return tokenizer->tokenText(id);
    std::string w = tokenizer->decode({ id });
    return w.size() > 1 && w.front() == ' ' ? w.substr(1) : w;
}

Captioner loadCaptioner(const std::string& path)
{
    const ModelSource source = probeModel(path);
    if (source.config.kind != ModelKind::ImageToText)
        throw Error(path,
            "is a " + modelKindName(source.config.kind) + " model; captioning needs an image-to-text "
                + "model (a vision-encoder-decoder folder)");
    Captioner c;
    c.model = loadVisionEncoderDecoder(source);
    c.tokenizer = loadTokenizer(source);
    return c;
}

namespace {

SamplerOptions seeded(SamplerOptions s)
{
    if (s.seed == 0) s.seed = 1; // xorshift's one invalid state
    return s;
}

} // namespace

std::shared_ptr<const EncoderOutput> encodeImage(
    const VisionEncoderDecoderModel& model, const Tensor& pixels, const Tensor& headMask, ForwardOptions options)
{
    Intervention intervention;
    intervention.headMask = headMask;
    if (!headMask.empty()) options.intervention = &intervention;
    EncoderInput input;
    input.pixels = pixels;
    return model.encode(input, options);
}

CaptionRun::CaptionRun(std::shared_ptr<const VisionEncoderDecoderModel> model,
    std::shared_ptr<const EncoderOutput> encoding, const CaptionOptions& options,
    std::shared_ptr<const EncoderOutput> unmasked)
    : m_model(std::move(model))
    , m_encoding(std::move(encoding))
    , m_options(options)
    , m_sampler(seeded(options.sampling))
{
    if (m_options.maxNewTokens < 1) throw Error("the caption needs a token limit of at least 1");
    if (m_model->decoderStartToken() < 0)
        throw Error(m_model->config().source, "no decoder_start_token_id: cannot start a caption");
    m_states.push_back(makeBeamDecoder(m_model, m_encoding, m_options.headMask));
    if (unmasked) m_unmaskedStates.push_back(makeBeamDecoder(m_model, std::move(unmasked)));
    if (m_options.strategy == CaptionStrategy::Beam) {
        BeamOptions beam;
        beam.width = m_options.beamWidth;
        beam.maxNewTokens = m_options.maxNewTokens;
        beam.startToken = m_model->decoderStartToken();
        beam.eosToken = m_model->config().eosTokenId;
        m_beamTokens = beamSearch(*m_states.front(), beam).front().tokens;
    }
}

bool CaptionRun::finished() const
{
    if (!m_words.empty() && m_words.back().token == m_model->config().eosTokenId) return true;
    const auto n = static_cast<int64_t>(m_words.size());
    return n >= m_options.maxNewTokens
        || (m_options.strategy == CaptionStrategy::Beam && n >= static_cast<int64_t>(m_beamTokens.size()));
}

bool CaptionRun::step()
{
    if (finished()) return false;
    const int64_t fed = m_words.empty() ? m_model->decoderStartToken() : m_words.back().token;
    std::unique_ptr<BeamDecoder> state = m_states.back()->clone();
    BeamStepOutput out = state->step(fed);
    const auto V = static_cast<int64_t>(out.logits.size());
    m_samplerStates.push_back(m_sampler.state());
    int64_t token = 0;
    switch (m_options.strategy) {
    case CaptionStrategy::Greedy:
        token = argmax(out.logits.data(), V);
        break;
    case CaptionStrategy::Sample:
        token = m_sampler.sample(out.logits.data(), V);
        break;
    case CaptionStrategy::Beam:
        token = m_beamTokens[m_words.size()];
        break;
    }
    double sum = 0.0;
    const float top = out.logits[static_cast<size_t>(argmax(out.logits.data(), V))];
    for (float l : out.logits)
        sum += std::exp(static_cast<double>(l - top));
    const double p = std::exp(static_cast<double>(out.logits[static_cast<size_t>(token)] - top)) / sum;
    CaptionWord word { token, static_cast<float>(p), std::move(out.crossAttention), {} };
    if (!m_unmaskedStates.empty()) {
        // The word chosen under the mask, fed to the unmodified decoder after the same words: its attention for the
        // same word, not for whatever word the unmodified model would have chosen.
        std::unique_ptr<BeamDecoder> unmaskedState = m_unmaskedStates.back()->clone();
        word.unmaskedCrossAttention = unmaskedState->step(fed).crossAttention;
        m_unmaskedStates.push_back(std::move(unmaskedState));
    }
    m_words.push_back(std::move(word));
    m_states.push_back(std::move(state));
    return true;
}

void CaptionRun::back()
{
    if (m_words.empty()) return;
    m_words.pop_back();
    m_states.pop_back();
    if (!m_unmaskedStates.empty()) m_unmaskedStates.pop_back();
    m_sampler.restoreState(m_samplerStates.back());
    m_samplerStates.pop_back();
}

std::vector<int64_t> CaptionRun::ids() const
{
    std::vector<int64_t> ids;
    for (const CaptionWord& w : m_words)
        ids.push_back(w.token);
    return ids;
}

Tensor wordPatchAttention(const std::vector<CaptionWord>& words, int64_t layer, int64_t prefixTokens)
{
    const auto n = static_cast<int64_t>(words.size());
    if (n == 0) return Tensor({ 0, 0, 0 });
    const Tensor& first = words.front().crossAttention;
    const int64_t L = first.dim(0), H = first.dim(1), S = first.dim(2), P = S - prefixTokens;
    if (layer < 0 || layer >= L)
        throw Error("decoder layer " + std::to_string(layer) + " is outside 0.." + std::to_string(L - 1));
    Tensor out({ n, H, P });
    for (int64_t w = 0; w < n; ++w)
        for (int64_t h = 0; h < H; ++h)
            std::memcpy(out.data() + (w * H + h) * P,
                words[static_cast<size_t>(w)].crossAttention.data() + (layer * H + h) * S + prefixTokens,
                sizeof(float) * static_cast<size_t>(P));
    return out;
}

} // namespace attn
