// SPDX-License-Identifier: MIT
#pragma once
// A translation model as `translate`, `align` and the GUI's alignment view use it: a transformer encoder-decoder or an
// RNN seq2seq model, with the way each side's text becomes pieces (the model's tokenizer, the RNN's word vocabularies,
// or token ids when the model ships no tokenizer).
#include "model/rnn_seq2seq.h"
#include "model/seq2seq_model.h"
#include "service/model_registry.h"
#include "session/beam_search.h"
#include "tokenizer/tokenizer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attn {

/// One side of a sentence pair: pieces with their ids, and the word each piece belongs to (align/word_pieces.h).
struct AlignedSide {
    std::vector<int64_t> ids;
    std::vector<std::string> pieces;
    std::vector<bool> special;
    std::vector<int64_t> wordOfPiece; ///< -1 for special pieces
    std::vector<std::string> words; ///< display text of each word (its pieces joined, markers dropped)
};

class Translator {
public:
    /// True for an RNN seq2seq folder or a model whose config describes an encoder-decoder (nothing is loaded).
    static bool accepts(const std::string& path);
    /// Loads the model and its tokenizer (`tokenizerPath` overrides the one found beside the model; a model without
    /// any tokenizer takes token ids as text). Throws Error naming the file.
    explicit Translator(const std::string& path, const std::string& tokenizerPath = "");
    /// The same with the weights from `models` (the GUI's one copy, shared with the other tabs).
    Translator(const std::string& path, ModelRegistry& models, const std::string& tokenizerPath = "");

    AlignedSide source(const std::string& text) const;
    /// Reference target text for teacher forcing, ending with EOS like the source.
    AlignedSide target(const std::string& text) const;
    /// Generated target ids (EOS included when produced).
    AlignedSide generated(const std::vector<int64_t>& ids) const;
    std::string text(const std::vector<int64_t>& ids) const;

    int64_t startToken() const;
    int64_t eosToken() const;
    /// The generation cap: the RNN's max length, else 64 new tokens.
    int64_t maxNewTokens() const;
    /// The decoder before any target token: the source encoded, and every step to come, on `backend` (null: the
    /// CPU; the RNN runs on the CPU always).
    std::unique_ptr<BeamDecoder> decoder(
        const std::vector<int64_t>& sourceIds, const std::shared_ptr<Backend>& backend = nullptr) const;
    std::string describe() const;
    /// The transformer encoder-decoder; null for an RNN seq2seq model.
    const std::shared_ptr<const EncoderDecoderModel>& transformer() const { return m_transformer; }
    const std::shared_ptr<const RnnSeq2SeqModel>& rnn() const { return m_rnn; }

private:
    Translator(const std::string& path, const std::string& tokenizerPath,
        const std::function<std::shared_ptr<const Model>(const ModelSource&)>& load);
    AlignedSide finish(AlignedSide side) const;
    AlignedSide tokenized(const std::vector<Token>& tokens) const;
    /// Without a tokenizer a text is token ids separated by spaces or commas.
    std::vector<int64_t> parseIds(const std::string& text) const;

    std::shared_ptr<const EncoderDecoderModel> m_transformer;
    std::shared_ptr<const RnnSeq2SeqModel> m_rnn;
    std::unique_ptr<Tokenizer> m_tokenizer;
    std::string m_path;
    std::string m_noTokenizer; ///< why there is no tokenizer, when there is none
};

} // namespace attn
