// SPDX-License-Identifier: MIT
#pragma once
#include "tokenizer/added_tokens.h"
#include "tokenizer/tokenizer.h"

#include <unordered_map>
#include <utility>

namespace attn {

/// Byte-level BPE (GPT-2, RoBERTa, Qwen2, Llama 3 style): GPT-2 regex pre-tokenization, bytes mapped to
/// printable characters, merges applied lowest rank first (leftmost on ties).
class BpeTokenizer : public Tokenizer {
public:
    struct Spec {
        std::string path; ///< for messages: the vocabulary file
        std::string mergesPath; ///< for messages: where the merges came from
        std::vector<std::string> vocab; ///< piece by id (ids without a piece hold "")
        std::vector<std::pair<std::string, std::string>> merges; ///< by rank
        AddedTokens added;
        SpecialTokenIds special;
        std::vector<int64_t> prefix; ///< added around a single text when addSpecialTokens
        std::vector<int64_t> suffix;
        std::vector<int64_t> pairMiddle; ///< between the texts of a pair (e.g. RoBERTa's "</s></s>")
        bool addPrefixSpace = false;
        bool ignoreMerges = false; ///< Llama 3: a whole pre-token found in the vocabulary is one token
    };
    explicit BpeTokenizer(Spec spec); ///< throws Error for merges that use pieces missing from the vocabulary

    std::vector<Token> encode(const std::string& text, bool addSpecialTokens = true) const override;
    std::vector<Token> encodePair(
        const std::string& first, const std::string& second, bool addSpecialTokens = true) const override;
    std::string decode(const std::vector<int64_t>& ids, bool skipSpecial = false) const override;
    std::string tokenText(int64_t id) const override;
    int64_t vocabSize() const override { return static_cast<int64_t>(m_spec.vocab.size()); }
    std::string kind() const override { return "byte-level BPE"; }
    std::string path() const override { return m_spec.path; }
    bool isSpecial(int64_t id) const override;

private:
    struct Merge {
        int rank;
        int64_t result;
    };
    void encodeText(const std::string& text, size_t offset, std::vector<Token>& out) const;
    void encodeWord(const std::string& text, size_t begin, size_t end, bool prefixSpace, size_t offset,
        std::vector<Token>& out) const;
    Token specialToken(int64_t id, size_t at) const;
    std::string pieceBytes(int64_t id) const;

    Spec m_spec;
    std::unordered_map<std::string, int64_t> m_ids;
    std::unordered_map<uint64_t, Merge> m_merges; ///< (left id << 32 | right id) -> merge
};

/// GPT-2's bytes_to_unicode(): the printable character standing for each byte.
const std::vector<std::string>& byteToUnicode();

} // namespace attn
