// SPDX-License-Identifier: MIT
#pragma once
// Greedy decoding one target token at a time, for watching an alignment grow: every step runs one incremental
// decoder step (transformer KV cache or RNN state) and keeps what that step's cross-attention row is derived from (a
// transformer's queries, session/cross_attention_source.h) or the row itself (the RNN's). The tokens equal
// beamSearch with width 1 (`attnscope-cli translate`), ties going to the lowest id as there.
#include "core/tensor.h"
#include "session/beam_search.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attn {

class StepwiseTranslation {
public:
    /// `start` is the decoder before any target token (Translator::decoder); it stays untouched for reset().
    /// Throws Error for a null decoder or maxNewTokens < 1.
    StepwiseTranslation(std::unique_ptr<BeamDecoder> start, int64_t startToken, int64_t eosToken, int64_t maxNewTokens);

    /// True once EOS was chosen or maxNewTokens tokens were.
    bool finished() const;
    /// Feeds the last chosen token (the start token first), appends the argmax token and the step's cross-attention
    /// queries [layers, heads, head dim] (transformers) or attention row [1, 1, K] (RNN). Throws Error when already
    /// finished.
    void step();
    /// Drops the last token and restores the decoder state before it; does nothing before the first step.
    void back();
    /// Back to no target token.
    void reset();
    /// The steps from now on run on `backend` (BeamDecoder::useBackend); the ones taken stay as they are.
    void useBackend(const std::shared_ptr<Backend>& backend);

    /// Generated ids, EOS included when chosen.
    const std::vector<int64_t>& tokens() const { return m_tokens; }
    /// RNN: crossAttention()[i] is the attention of the step that chose tokens()[i]; empty for a transformer.
    const std::vector<Tensor>& crossAttention() const { return m_attention; }
    /// Transformers: crossQueries()[i] are the cross-attention queries of that step, which meet crossKeys() (null
    /// for the RNN); empty for the RNN.
    const std::vector<Tensor>& crossQueries() const { return m_queries; }
    std::shared_ptr<const CrossKeys> crossKeys() const { return m_start->crossKeys(); }
    /// Sum of the chosen tokens' log-probabilities.
    double logProb() const { return m_logProbs.empty() ? 0.0 : m_logProbs.back(); }

private:
    std::unique_ptr<BeamDecoder> m_start;
    /// m_states[k]: the decoder after k fed tokens, so back() is a pop (one cache copy per step; these models and
    /// sentences are small).
    std::vector<std::unique_ptr<BeamDecoder>> m_states;
    std::vector<int64_t> m_tokens;
    std::vector<Tensor> m_attention, m_queries;
    std::vector<double> m_logProbs; ///< running sums
    int64_t m_startToken, m_eosToken, m_maxNewTokens;
};

} // namespace attn
