// SPDX-License-Identifier: MIT
#pragma once
// What `translate` and `align` share: a transformer encoder-decoder or an RNN seq2seq model, with the way its text
// becomes ids (tokenizer, the RNN's word vocabulary, or plain ids when the model ships no tokenizer).
#include "cli/args.h"
#include "model/rnn_seq2seq.h"
#include "model/seq2seq_model.h"
#include "session/beam_search.h"
#include "tokenizer/tokenizer.h"

#include <memory>
#include <string>
#include <vector>

namespace attn::cli {

/// Ids of one side plus, per id, its piece text and whether it is a special token (for merging into words).
struct Pieces {
    std::vector<int64_t> ids;
    std::vector<std::string> text;
    std::vector<bool> special;
};

class TranslationModel {
public:
    /// MODEL: an RNN seq2seq folder or an encoder-decoder that loadModel accepts; --tokenizer FILE overrides.
    TranslationModel(const Args& args, const std::string& path);

    /// Source text -> ids (with the model's framing tokens, e.g. a final EOS). Without a tokenizer the text is a
    /// list of ids.
    Pieces source(const std::string& text) const;
    /// Target text -> ids for teacher forcing, ending with EOS like the source.
    Pieces target(const std::string& text) const;
    std::string decode(const std::vector<int64_t>& ids) const;
    int64_t startToken() const;
    int64_t eosToken() const;
    std::unique_ptr<BeamDecoder> decoder(const std::vector<int64_t>& sourceIds) const;

private:
    Pieces pieces(const std::string& text, bool sourceSide) const;

    std::shared_ptr<const EncoderDecoderModel> m_transformer;
    std::shared_ptr<const RnnSeq2SeqModel> m_rnn;
    std::unique_ptr<Tokenizer> m_tokenizer;
};

} // namespace attn::cli
