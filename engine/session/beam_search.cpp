// SPDX-License-Identifier: MIT
#include "session/beam_search.h"

#include "core/error.h"
#include "intervention/intervention.h"
#include "model/encdec_transformer.h"
#include "model/rnn_seq2seq.h"
#include "model/seq2seq_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace attn {
namespace {

class TransformerBeamDecoder final : public BeamDecoder {
public:
    TransformerBeamDecoder(std::shared_ptr<const EncoderDecoderModel> model, std::shared_ptr<const EncoderOutput> enc,
        const Tensor& headMask, std::shared_ptr<Backend> backend)
        : m_model(std::move(model))
        , m_encoding(std::move(enc))
        , m_intervention(maskOnly(headMask))
        , m_backend(std::move(backend))
        , m_cache(m_model->newDecoderCache())
        , m_crossKeys(std::make_shared<const CrossKeys>(CrossKeys { m_encoding, crossScale(*m_model) }))
    {
    }
    std::unique_ptr<BeamDecoder> clone() const override { return std::make_unique<TransformerBeamDecoder>(*this); }
    BeamStepOutput step(int64_t token) override
    {
        ForwardOptions options;
        options.wantQueryKeys = true;
        options.intervention = m_intervention.get();
        options.backend = m_backend.get();
        const Seq2SeqStepResult r = m_model->decode(*m_encoding, m_cache, { token }, options);
        BeamStepOutput out;
        out.logits = r.logits.storage();
        const int64_t L = static_cast<int64_t>(r.crossAttention.size()), H = m_model->decoderHeads();
        const int64_t S = m_encoding->length(), d = m_model->decoderHeadDim();
        out.crossAttention = Tensor({ L, H, S });
        for (int64_t l = 0; l < L; ++l)
            std::memcpy(out.crossAttention.data() + l * H * S, r.crossAttention[l].data(), sizeof(float) * H * S);
        if (static_cast<int64_t>(r.crossQueries.size()) != L) return out; // a model that keeps no queries
        out.crossQueries = Tensor({ L, H, d });
        for (int64_t l = 0; l < L; ++l)
            std::memcpy(out.crossQueries.data() + l * H * d, r.crossQueries[l].data(), sizeof(float) * H * d);
        return out;
    }
    std::shared_ptr<const CrossKeys> crossKeys() const override { return m_crossKeys; }
    void useBackend(std::shared_ptr<Backend> backend) override { m_backend = std::move(backend); }

private:
    static std::shared_ptr<const Intervention> maskOnly(const Tensor& headMask)
    {
        if (headMask.empty()) return nullptr;
        auto intervention = std::make_shared<Intervention>();
        intervention->headMask = headMask;
        return intervention;
    }
    /// The transformer's attention scale (T5: 1); another encoder-decoder scales by 1 / sqrt(head dim).
    static float crossScale(const EncoderDecoderModel& model)
    {
        const auto* transformer = dynamic_cast<const TransformerSeq2Seq*>(&model);
        return transformer ? transformer->weights().attentionScale : 0.0f;
    }

    std::shared_ptr<const EncoderDecoderModel> m_model;
    std::shared_ptr<const EncoderOutput> m_encoding;
    std::shared_ptr<const Intervention> m_intervention; ///< null: the unmodified model (shared by the clones)
    std::shared_ptr<Backend> m_backend; ///< null: the CPU attention core
    KvCache m_cache;
    std::shared_ptr<const CrossKeys> m_crossKeys;
};

class RnnBeamDecoder final : public BeamDecoder {
public:
    RnnBeamDecoder(std::shared_ptr<const RnnSeq2SeqModel> model, std::shared_ptr<const RnnEncoding> enc)
        : m_model(std::move(model))
        , m_encoding(std::move(enc))
        , m_state(m_model->initialState(*m_encoding))
    {
    }
    std::unique_ptr<BeamDecoder> clone() const override { return std::make_unique<RnnBeamDecoder>(*this); }
    BeamStepOutput step(int64_t token) override
    {
        RnnStep s = m_model->step(*m_encoding, m_state, token);
        const int64_t K = static_cast<int64_t>(s.attention.size());
        return { std::move(s.logits), Tensor({ 1, 1, K }, std::move(s.attention)), {} };
    }

private:
    std::shared_ptr<const RnnSeq2SeqModel> m_model;
    std::shared_ptr<const RnnEncoding> m_encoding;
    RnnDecoderState m_state;
};

struct Beam {
    std::unique_ptr<BeamDecoder> decoder; ///< state after feeding every token of hyp but the last
    BeamHypothesis hyp;
    int64_t next; ///< the token to feed next
};

std::vector<float> logSoftmax(const std::vector<float>& logits)
{
    const float m = *std::max_element(logits.begin(), logits.end());
    double sum = 0.0;
    for (float x : logits)
        sum += std::exp(static_cast<double>(x) - m);
    const float lse = m + static_cast<float>(std::log(sum));
    std::vector<float> out(logits.size());
    for (size_t i = 0; i < logits.size(); ++i)
        out[i] = logits[i] - lse;
    return out;
}

double normalised(double logProb, size_t length, double penalty)
{
    return logProb / std::pow(static_cast<double>(std::max<size_t>(length, 1)), penalty);
}

/// Whether a live beam could still end above the width-th best finished hypothesis. Log-probabilities only fall,
/// so with a non-negative length penalty the best a live beam can reach is its current sum divided by the longest
/// allowed length.
bool canImprove(
    const std::vector<Beam>& live, std::vector<BeamHypothesis>& finished, size_t width, const BeamOptions& options)
{
    std::stable_sort(finished.begin(), finished.end(),
        [](const BeamHypothesis& a, const BeamHypothesis& b) { return a.score > b.score; });
    const double worstKept = finished[width - 1].score;
    for (const Beam& b : live) {
        const double bound = options.lengthPenalty >= 0.0
            ? normalised(b.hyp.logProb, static_cast<size_t>(options.maxNewTokens), options.lengthPenalty)
            : b.hyp.score;
        if (bound > worstKept) return true;
    }
    return false;
}

} // namespace

std::vector<BeamHypothesis> beamSearch(const BeamDecoder& start, const BeamOptions& options)
{
    if (options.width < 1) throw Error("beam width must be at least 1, got " + std::to_string(options.width));
    const size_t width = static_cast<size_t>(options.width);
    std::vector<Beam> live;
    live.push_back({ start.clone(), {}, options.startToken });
    std::vector<BeamHypothesis> finished;
    for (int64_t step = 0; step < options.maxNewTokens && !live.empty(); ++step) {
        struct Candidate {
            size_t parent;
            int64_t token;
            double logProb;
        };
        std::vector<Candidate> candidates;
        std::vector<BeamStepOutput> outputs;
        for (size_t b = 0; b < live.size(); ++b) {
            outputs.push_back(live[b].decoder->step(live[b].next));
            const std::vector<float> lp = logSoftmax(outputs.back().logits);
            std::vector<int64_t> order(lp.size());
            for (size_t i = 0; i < order.size(); ++i)
                order[i] = static_cast<int64_t>(i);
            const size_t k = std::min(width, order.size());
            std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                [&](int64_t a, int64_t c) { return lp[a] > lp[c] || (lp[a] == lp[c] && a < c); });
            for (size_t i = 0; i < k; ++i)
                candidates.push_back({ b, order[i], live[b].hyp.logProb + lp[order[i]] });
        }
        std::stable_sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& c) { return a.logProb > c.logProb; });
        std::vector<Beam> next;
        for (const Candidate& c : candidates) {
            if (next.size() >= width) break;
            BeamHypothesis h = live[c.parent].hyp;
            h.tokens.push_back(c.token);
            h.logProb = c.logProb;
            h.crossAttention.push_back(outputs[c.parent].crossAttention);
            h.crossQueries.push_back(outputs[c.parent].crossQueries);
            h.score = normalised(h.logProb, h.tokens.size(), options.lengthPenalty);
            if (c.token == options.eosToken) {
                h.finished = true;
                finished.push_back(std::move(h));
            } else {
                next.push_back({ live[c.parent].decoder->clone(), std::move(h), c.token });
            }
        }
        live = std::move(next);
        if (finished.size() >= width && !canImprove(live, finished, width, options)) break;
    }
    // Unfinished beams (the token limit was hit) fill up the result only when too few ended with EOS.
    for (Beam& b : live)
        if (finished.size() < width) finished.push_back(std::move(b.hyp));
    std::stable_sort(finished.begin(), finished.end(),
        [](const BeamHypothesis& a, const BeamHypothesis& b) { return a.score > b.score; });
    if (finished.size() > width) finished.resize(width);
    return finished;
}

std::unique_ptr<BeamDecoder> makeBeamDecoder(std::shared_ptr<const EncoderDecoderModel> model,
    std::shared_ptr<const EncoderOutput> encoding, const Tensor& headMask, std::shared_ptr<Backend> backend)
{
    return std::make_unique<TransformerBeamDecoder>(
        std::move(model), std::move(encoding), headMask, std::move(backend));
}

std::unique_ptr<BeamDecoder> makeBeamDecoder(
    std::shared_ptr<const RnnSeq2SeqModel> model, std::shared_ptr<const RnnEncoding> encoding)
{
    return std::make_unique<RnnBeamDecoder>(std::move(model), std::move(encoding));
}

} // namespace attn
