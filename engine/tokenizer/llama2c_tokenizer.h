// SPDX-License-Identifier: MIT
#pragma once
#include "tokenizer/tokenizer.h"

#include <array>
#include <unordered_map>

namespace attn {

/// llama2.c's tokenizer.bin (e.g. tok512.bin): int32 max_token_length, then per token float32 score, int32 length
/// and the bytes. Encoding reproduces run.c's encode() exactly: optional BOS, a dummy " " prefix token when the
/// text is not empty, one token per UTF-8 character (byte fallback <0xNN> = id byte + 3 when the character is
/// not in the vocabulary), then repeatedly the best-scoring merge of two neighbours (leftmost on ties; BOS takes
/// part like any token). Ids 0, 1, 2 are <unk>, BOS, EOS as run.c assumes.
///
/// Decoding follows run.c's decode(): a piece right after BOS loses its leading space and "<0xNN>" pieces are raw
/// bytes. BOS and EOS delimit sequences and are never printed (run.c never prints them); <unk> prints as
/// "<unk>" unless skipSpecial. run.c's safe_printf() also hides single non-printable bytes; we drop only
/// ASCII control bytes other than whitespace, so that UTF-8 text written with byte tokens survives.
/// Hence decode(encode(x, true)) == x.
class Llama2cTokenizer : public Tokenizer {
public:
    /// Reads `vocabSize` tokens (the model header's vocab_size; <= 0: as many as the file holds). Throws Error
    /// naming the file when it is truncated, corrupt, or holds more tokens than vocabSize.
    Llama2cTokenizer(const std::string& path, int64_t vocabSize);
    /// The same algorithm over pieces given in memory, spaces as ' ': llama.cpp's SentencePiece-style ("llama")
    /// vocabulary of a GGUF file, whose tokenizer is run.c's (score-ordered merges, byte fallback to "<0xNN>").
    /// `path` names the source in messages.
    Llama2cTokenizer(std::string path, std::vector<std::string> pieces, std::vector<float> scores,
        SpecialTokenIds special);

    std::vector<Token> encode(const std::string& text, bool addSpecialTokens = true) const override;
    std::string decode(const std::vector<int64_t>& ids, bool skipSpecial = false) const override;
    std::string tokenText(int64_t id) const override;
    int64_t vocabSize() const override { return static_cast<int64_t>(m_pieces.size()); }
    std::string kind() const override { return m_kind; }
    std::string path() const override { return m_path; }

    float score(int64_t id) const { return m_scores.at(static_cast<size_t>(id)); }
    const std::string& piece(int64_t id) const { return m_pieces.at(static_cast<size_t>(id)); }
    int maxTokenLength() const { return m_maxTokenLength; }

private:
    void index();
    int64_t lookup(const std::string& piece) const;
    /// The bytes a piece prints as; `afterBos` strips a leading space.
    std::string pieceOutput(int64_t id, bool afterBos) const;
    void checkId(int64_t id) const;

    std::string m_path;
    int m_maxTokenLength = 0;
    std::vector<std::string> m_pieces;
    std::vector<float> m_scores;
    std::unordered_map<std::string, int64_t> m_ids;
    std::array<int64_t, 256> m_byteIds {};
    std::string m_kind = "llama2.c BPE";
};

} // namespace attn
