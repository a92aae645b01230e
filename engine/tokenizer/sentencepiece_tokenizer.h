// SPDX-License-Identifier: MIT
#pragma once
#include "tokenizer/tokenizer.h"

#include <memory>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace attn {

/// A SentencePiece .model (Llama 2 tokenizer.model, T5 spiece.model, tok512.model) through libsentencepiece.
/// addSpecialTokens adds BOS when the model defines one (the Llama convention).
class SentencePieceTokenizer : public Tokenizer {
public:
    explicit SentencePieceTokenizer(const std::string& path); ///< throws Error naming the file
    ~SentencePieceTokenizer() override;

    std::vector<Token> encode(const std::string& text, bool addSpecialTokens = true) const override;
    std::string decode(const std::vector<int64_t>& ids, bool skipSpecial = false) const override;
    std::string tokenText(int64_t id) const override;
    int64_t vocabSize() const override;
    std::string kind() const override { return "SentencePiece"; }
    std::string path() const override { return m_path; }
    bool isSpecial(int64_t id) const override;

private:
    void checkId(int64_t id) const;

    std::string m_path;
    std::unique_ptr<sentencepiece::SentencePieceProcessor> m_sp;
};

} // namespace attn
