// SPDX-License-Identifier: MIT
#include "align/stepwise_translation.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>

namespace attn {

StepwiseTranslation::StepwiseTranslation(
    std::unique_ptr<BeamDecoder> start, int64_t startToken, int64_t eosToken, int64_t maxNewTokens)
    : m_start(std::move(start))
    , m_startToken(startToken)
    , m_eosToken(eosToken)
    , m_maxNewTokens(maxNewTokens)
{
    if (!m_start) throw Error("step-by-step translation: no decoder");
    if (maxNewTokens < 1)
        throw Error("step-by-step translation: max new tokens must be at least 1, got " + std::to_string(maxNewTokens));
}

bool StepwiseTranslation::finished() const
{
    return static_cast<int64_t>(m_tokens.size()) >= m_maxNewTokens
        || (!m_tokens.empty() && m_tokens.back() == m_eosToken);
}

void StepwiseTranslation::step()
{
    if (finished()) throw Error("step-by-step translation: the translation is finished");
    std::unique_ptr<BeamDecoder> next = (m_states.empty() ? *m_start : *m_states.back()).clone();
    BeamStepOutput out = next->step(m_tokens.empty() ? m_startToken : m_tokens.back());
    if (out.logits.empty()) throw Error("step-by-step translation: the decoder returned no logits");
    // max_element keeps the first maximum: the lowest id wins ties, as in beamSearch.
    const auto best = std::max_element(out.logits.begin(), out.logits.end());
    double sum = 0.0;
    for (float x : out.logits)
        sum += std::exp(static_cast<double>(x) - *best);
    m_logProbs.push_back(logProb() - std::log(sum)); // log p(best) = best - logsumexp
    m_tokens.push_back(best - out.logits.begin());
    if (out.crossQueries.empty())
        m_attention.push_back(std::move(out.crossAttention));
    else // the row is derived from the queries on request
        m_queries.push_back(std::move(out.crossQueries));
    m_states.push_back(std::move(next));
}

void StepwiseTranslation::back()
{
    if (m_tokens.empty()) return;
    m_tokens.pop_back();
    (m_queries.empty() ? m_attention : m_queries).pop_back();
    m_logProbs.pop_back();
    m_states.pop_back();
}

void StepwiseTranslation::reset()
{
    m_tokens.clear();
    m_attention.clear();
    m_queries.clear();
    m_logProbs.clear();
    m_states.clear();
}

void StepwiseTranslation::useBackend(const std::shared_ptr<Backend>& backend)
{
    m_start->useBackend(backend);
    for (const std::unique_ptr<BeamDecoder>& state : m_states)
        state->useBackend(backend); // a step clones the last state, which back() may make any of them
}

} // namespace attn
