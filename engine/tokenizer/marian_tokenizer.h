// SPDX-License-Identifier: MIT
#pragma once
#include "tokenizer/tokenizer.h"

#include <map>
#include <memory>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace attn {

/// A MarianMT tokenizer folder as HF's MarianTokenizer reads it: source.spm and target.spm (SentencePiece) segment the
/// text, and vocab.json maps the *pieces* to model ids (the spm ids are not used); pieces missing from vocab.json
/// become <unk>. Special tokens (eos, unk, pad) come from tokenizer_config.json / special_tokens_map.json, defaulting
/// to </s>, <unk>, <pad>. A leading language code such as ">>fr<<" is one token, like HF's.
/// Not supported (refused, not guessed): separate target vocabularies (target_vocab.json).
/// HF's optional Moses punctuation normalization (when sacremoses is installed) is not applied.
class MarianTokenizer : public Tokenizer {
public:
    /// `folder` holds source.spm, target.spm and vocab.json; throws Error naming the missing or malformed file.
    explicit MarianTokenizer(const std::string& folder);
    ~MarianTokenizer() override;

    /// Source text through source.spm; addSpecialTokens appends </s>.
    std::vector<Token> encode(const std::string& text, bool addSpecialTokens = true) const override;
    /// Target text (HF's text_target) through target.spm; addSpecialTokens appends </s>.
    std::vector<Token> encodeTarget(const std::string& text, bool addSpecialTokens = true) const override;
    /// Target ids to text: runs of pieces decoded by target.spm, special tokens kept as their piece (or skipped),
    /// then transformers' clean-up of spaces before punctuation unless tokenizer_config.json turns it off.
    std::string decode(const std::vector<int64_t>& ids, bool skipSpecial = false) const override;
    std::string tokenText(int64_t id) const override;
    int64_t vocabSize() const override { return static_cast<int64_t>(m_pieces.size()); }
    std::string kind() const override { return "MarianMT SentencePiece"; }
    std::string path() const override { return m_vocabPath; }

private:
    std::vector<Token> encodeWith(
        const sentencepiece::SentencePieceProcessor& sp, const std::string& text, bool addSpecialTokens) const;
    int64_t idOf(const std::string& piece) const;
    const std::string& pieceOf(int64_t id) const;

    std::string m_vocabPath;
    std::map<std::string, int64_t> m_ids;
    std::vector<std::string> m_pieces; ///< by id; empty where vocab.json has no entry
    std::unique_ptr<sentencepiece::SentencePieceProcessor> m_source;
    std::unique_ptr<sentencepiece::SentencePieceProcessor> m_target;
    bool m_cleanUpSpaces = true;
};

} // namespace attn
