// SPDX-License-Identifier: MIT
#pragma once
// RNN encoder-decoders with attention: GRU/LSTM encoder (optionally bidirectional) and a decoder scoring with
// Bahdanau (additive) or Luong (dot / general / concat) attention, plus the PyTorch seq2seq tutorial's
// AttnDecoderRNN (location attention over a fixed number of positions). Layout: docs/rnn-seq2seq-format.md.
#include "model/model.h"
#include "model/rnn_cells.h"

#include <memory>
#include <string>
#include <vector>

namespace attn {

enum class RnnScore { Bahdanau, LuongDot, LuongGeneral, LuongConcat, Location };

/// The encoded source: the attention keys and the final encoder state.
struct RnnEncoding {
    Tensor keys; ///< [K, De]: the top encoder layer's outputs (Location: zero-padded to the fixed K = max_length)
    int64_t length = 0; ///< source tokens (EOS included)
    std::vector<float> h, c; ///< the decoder's initial state, [layers * Hd], layer 0 first
};

/// What a decoder carries from step to step; copy it to branch (beam search).
struct RnnDecoderState {
    std::vector<float> h, c; ///< [layers * Hd], layer 0 first: the top layer's state is the last Hd values
    std::vector<float> feed; ///< Luong's attentional state for input feeding
};

struct RnnStep {
    std::vector<float> logits; ///< [target vocab]
    std::vector<float> attention; ///< [K] alignment weights over the keys
};

struct RnnSeq2SeqWeights {
    RnnScore score = RnnScore::Bahdanau;
    bool inputFeeding = false;
    Tensor sourceEmbedding, targetEmbedding;
    std::vector<RnnWeights> encoder, encoderReverse, decoder; ///< per layer; encoderReverse empty unless bidirectional
    Tensor bridgeW, bridgeB; ///< optional: decoder h0 = tanh(bridge(final encoder h))
    Tensor queryW, keyW, scoreW, v; ///< Bahdanau: query [A, Hd], key [A, De], v [A]; general: scoreW [Hd, De];
                                    ///< concat: scoreW [A, Hd + De], v [A]; Location: scoreW [K, E + Hd] + scoreB
    Tensor scoreB;
    Tensor combineW, combineB; ///< Luong: [Hd, De + Hd]; Location: [Hd, E + De]
    Tensor outW, outB; ///< [Vt, Hd]
    int64_t fixedKeys = 0; ///< Location: K
};

class RnnSeq2SeqModel final : public Model {
public:
    RnnSeq2SeqModel(ModelConfig config, RnnSeq2SeqWeights weights, std::vector<std::string> sourceVocab,
        std::vector<std::string> targetVocab, int64_t maxLength);

    /// Source ids -> encoding. Throws Error for an empty source, ids out of range, or (Location) more than K ids.
    RnnEncoding encode(const std::vector<int64_t>& source) const;
    RnnDecoderState initialState(const RnnEncoding& encoding) const;
    /// Feeds `token` (the previous output, or the start token) and advances `state`.
    RnnStep step(const RnnEncoding& encoding, RnnDecoderState& state, int64_t token) const;

    const std::vector<std::string>& sourceVocab() const { return m_sourceVocab; }
    const std::vector<std::string>& targetVocab() const { return m_targetVocab; }
    int64_t startToken() const { return m_config.decoderStartTokenId; }
    int64_t eosToken() const { return m_config.eosTokenId; }
    /// The generation cap (the tutorial's MAX_LENGTH).
    int64_t maxLength() const { return m_maxLength; }
    RnnScore score() const { return m_w.score; }
    /// The trained parameters (the Mechanisms tab uses the attention's as they are).
    const RnnSeq2SeqWeights& weights() const { return m_w; }

    /// Words of `text` after the tutorial's normalizeString (lowercase, NFD without marks, space before .!?, runs
    /// outside [a-zA-Z.!?] -> one space), mapped to source ids, EOS appended. Throws Error naming an unknown word.
    std::vector<int64_t> sourceIds(const std::string& text) const;
    /// Target ids -> words joined by spaces (EOS shown as <EOS>).
    std::string targetText(const std::vector<int64_t>& ids) const;

private:
    RnnSeq2SeqWeights m_w;
    std::vector<std::string> m_sourceVocab, m_targetVocab;
    int64_t m_maxLength;
};

/// The tutorial's lowercase / strip-accents / punctuation normalisation.
std::string normalizeTutorialText(const std::string& text);

/// Loads either layout; throws Error naming the file for anything missing or mis-shaped.
std::shared_ptr<RnnSeq2SeqModel> loadRnnSeq2Seq(const std::string& path);

} // namespace attn
