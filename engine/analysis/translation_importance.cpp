// SPDX-License-Identifier: MIT
#include "analysis/translation_importance.h"

#include "analysis/row_log_prob.h"
#include "core/error.h"
#include "intervention/intervention.h"

#include <cmath>
#include <memory>

namespace attn {
namespace {

/// Sums over pairs of one set of passes.
struct PairSums {
    double logProb = 0.0;
    int64_t exact = 0;
};

/// True when `mask` changes a head of the encoder (its first `encoderLayers` rows are not all ones).
bool changesEncoder(const Tensor& mask, int64_t encoderLayers)
{
    if (mask.empty()) return false;
    const int64_t n = encoderLayers * mask.dim(1);
    for (int64_t i = 0; i < n; ++i)
        if (mask.data()[i] != 1.0f) return true;
    return false;
}

/// Scores pairs under head masks. A mask that leaves the encoder as it is reuses the unmodified encodings (what a
/// mask of ones there computes too: each probability times exactly 1), so decoder heads cost no encoder pass.
class PairScorer {
public:
    PairScorer(const EncoderDecoderModel& model, const std::vector<SentencePair>& pairs, const ForwardOptions& base,
        const RerunHooks& hooks)
        : m_model(model)
        , m_pairs(pairs)
        , m_options(scoringOptions(base, hooks))
        , m_hooks(hooks)
    {
        if (pairs.empty()) throw Error("head importance: no sentence pair to translate");
        for (const SentencePair& p : pairs) {
            if (p.source.empty()) throw Error("head importance: a sentence pair has an empty source");
            if (p.target.empty()) throw Error("head importance: a sentence pair has an empty reference translation");
            m_tokens += static_cast<int64_t>(p.target.size());
        }
        if (model.decoderStartToken() < 0)
            throw Error(model.config().source, "no decoder_start_token_id: cannot decode a reference");
    }

    /// Every pair once under `mask` (empty: none): teacher-forced, and greedily when `greedy`. Reports each pair as
    /// pass ++done of `total` to hooks.layerDone.
    PairSums run(const Tensor& mask, bool greedy, int64_t& done, int64_t total)
    {
        Intervention removal;
        removal.headMask = mask;
        ForwardOptions pass = m_options;
        pass.intervention = mask.empty() ? nullptr : &removal;
        const bool encoderChanged = changesEncoder(mask, m_model.headRows().encoderLayers);
        if (!encoderChanged && m_encodings.empty())
            for (const SentencePair& p : m_pairs)
                m_encodings.push_back(m_model.encode({ p.source, {} }, m_options));
        PairSums sums;
        for (size_t i = 0; i < m_pairs.size(); ++i) {
            const SentencePair& p = m_pairs[i];
            const std::shared_ptr<const EncoderOutput> encoding
                = encoderChanged ? m_model.encode({ p.source, {} }, pass) : m_encodings[i];
            sums.logProb += teacherForcedLogProb(*encoding, p.target, pass);
            if (greedy
                && greedyDecode(m_model, *encoding, static_cast<int64_t>(p.target.size()), true, nullptr, pass)
                    == p.target)
                ++sums.exact;
            if (m_hooks.layerDone && !m_hooks.layerDone(++done, total)) throw Cancelled();
        }
        return sums;
    }

    TranslationScore score(const PairSums& sums, bool greedy) const
    {
        return { sums.logProb / static_cast<double>(m_tokens),
            greedy ? static_cast<double>(sums.exact) / static_cast<double>(m_pairs.size()) : std::nan("") };
    }

private:
    /// Sum of the log-probabilities of `target` given decoder_start_token_id and the reference before each token.
    double teacherForcedLogProb(
        const EncoderOutput& encoding, const std::vector<int64_t>& target, const ForwardOptions& pass) const
    {
        std::vector<int64_t> inputs { m_model.decoderStartToken() };
        inputs.insert(inputs.end(), target.begin(), target.end() - 1);
        KvCache cache = m_model.newDecoderCache();
        const Seq2SeqStepResult r = m_model.decode(encoding, cache, inputs, pass);
        const int64_t v = r.logits.dim(1);
        double sum = 0.0;
        for (size_t i = 0; i < target.size(); ++i)
            sum += rowLogProb(r.logits.data() + static_cast<int64_t>(i) * v, v, target[i]);
        return sum;
    }

    const EncoderDecoderModel& m_model;
    const std::vector<SentencePair>& m_pairs;
    const ForwardOptions m_options;
    const RerunHooks m_hooks;
    int64_t m_tokens = 0;
    std::vector<std::shared_ptr<const EncoderOutput>> m_encodings; ///< unmodified, once a pass needs them
};

} // namespace

TranslationScore translationScore(const EncoderDecoderModel& model, const std::vector<SentencePair>& pairs,
    const Tensor& headMask, const ForwardOptions& base, bool greedy)
{
    PairScorer scorer(model, pairs, base, {});
    int64_t done = 0;
    return scorer.score(scorer.run(headMask, greedy, done, 0), greedy);
}

Tensor translationHeadImportance(const EncoderDecoderModel& model, const std::vector<SentencePair>& pairs,
    const ForwardOptions& base, double* unmodified, const RerunHooks& hooks)
{
    PairScorer scorer(model, pairs, base, hooks);
    const Seq2SeqHeadRows rows = model.headRows();
    const int64_t total = static_cast<int64_t>(pairs.size()) * (1 + rows.rows() * rows.heads);
    int64_t done = 0;
    const double reference = scorer.score(scorer.run({}, false, done, total), false).logProb;
    if (unmodified) *unmodified = reference;
    Tensor importance({ rows.rows(), rows.heads });
    for (int64_t r = 0; r < rows.rows(); ++r)
        for (int64_t h = 0; h < rows.heads; ++h) {
            const Tensor mask = seq2seqHeadMaskWith(model, { { r, h } }, 0.0f);
            const double removed = scorer.score(scorer.run(mask, false, done, total), false).logProb;
            importance.data()[r * rows.heads + h] = static_cast<float>(reference - removed);
        }
    return importance;
}

PruningCurve translationPruning(const EncoderDecoderModel& model, const std::vector<SentencePair>& pairs,
    const Tensor& importance, const ForwardOptions& base, const RerunHooks& hooks)
{
    PairScorer scorer(model, pairs, base, hooks);
    const Seq2SeqHeadRows rows = model.headRows();
    importance.expectShape({ rows.rows(), rows.heads }, "head importance");
    PruningCurve curve;
    curve.order = pruningOrder(importance);
    const size_t heads = curve.order.size();
    const int64_t total = static_cast<int64_t>(pairs.size() * (heads + 1));
    int64_t done = 0;
    std::vector<HeadRef> removed;
    for (size_t k = 0; k <= heads; ++k) {
        if (k > 0) removed.push_back(curve.order[k - 1]);
        const TranslationScore s
            = scorer.score(scorer.run(seq2seqHeadMaskWith(model, removed, 0.0f), true, done, total), true);
        curve.removedShare.push_back(static_cast<double>(k) / static_cast<double>(heads));
        curve.loss.push_back(-s.logProb);
        curve.accuracy.push_back(s.exactMatch);
    }
    return curve;
}

Tensor seq2seqHeadMaskWith(const EncoderDecoderModel& model, const std::vector<HeadRef>& heads, float value)
{
    const Seq2SeqHeadRows rows = model.headRows();
    Tensor mask({ rows.rows(), rows.heads }, std::vector<float>(static_cast<size_t>(rows.rows() * rows.heads), 1.0f));
    for (const HeadRef& h : heads) {
        if (h.layer < 0 || h.layer >= rows.rows() || h.head < 0 || h.head >= rows.heads)
            throw Error("head " + std::to_string(h.layer) + "." + std::to_string(h.head) + " is outside the model's "
                + std::to_string(rows.rows()) + " mask rows (encoder, decoder and cross-attention layers) x "
                + std::to_string(rows.heads) + " heads");
        mask.data()[h.layer * rows.heads + h.head] = value;
    }
    return mask;
}

} // namespace attn
