// SPDX-License-Identifier: MIT
#pragma once
#include "tokenizer/added_tokens.h"
#include "tokenizer/tokenizer.h"

#include <unordered_map>

namespace attn {

/// BERT's tokenizer: the BasicTokenizer normalization (drop control characters, whitespace to spaces, spaces
/// around CJK ideographs, accent stripping by NFD + dropping Mn, lowercasing), whitespace and punctuation
/// splitting, then greedy longest-match WordPiece with "##" continuations; a word that cannot be covered
/// becomes [UNK]. Matches Hugging Face's BertTokenizerFast.
///
/// Round trip: with lowercasing, decode(encode(x)) == x only for text already in normalized form: lowercase,
/// no accents or control characters, single spaces between words, no [UNK] words, and punctuation written
/// the way decode's clean-up joins it ("a, b." yes; "a , b" or "a-b" no, they come back as "a, b" and
/// "a - b"). Spans always point at the original text.
class WordPieceTokenizer : public Tokenizer {
public:
    struct Spec {
        std::string path;
        std::vector<std::string> vocab;
        AddedTokens added; ///< special tokens matched in the raw text ("[MASK]")
        SpecialTokenIds special;
        bool lowercase = true;
        bool stripAccents = true;
        bool chineseChars = true;
        size_t maxCharsPerWord = 100;
    };
    explicit WordPieceTokenizer(Spec spec);

    std::vector<Token> encode(const std::string& text, bool addSpecialTokens = true) const override;
    std::vector<Token> encodePair(
        const std::string& first, const std::string& second, bool addSpecialTokens = true) const override;
    std::string decode(const std::vector<int64_t>& ids, bool skipSpecial = false) const override;
    std::string tokenText(int64_t id) const override;
    int64_t vocabSize() const override { return static_cast<int64_t>(m_spec.vocab.size()); }
    std::string kind() const override { return "WordPiece"; }
    std::string path() const override { return m_spec.path; }
    bool isSpecial(int64_t id) const override;

private:
    /// A normalized character and the byte span of the original character it came from.
    struct NormChar {
        char32_t cp;
        size_t begin, end;
    };
    std::vector<NormChar> normalize(const std::string& text, size_t offset) const;
    void encodeText(const std::string& text, size_t offset, std::vector<Token>& out) const;
    void encodeWord(const std::vector<NormChar>& word, std::vector<Token>& out) const;
    std::vector<Token> encodeBody(const std::string& text) const;
    Token framing(int64_t id, size_t at, int typeId) const;

    Spec m_spec;
    std::unordered_map<std::string, int64_t> m_ids;
};

} // namespace attn
