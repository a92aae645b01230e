// SPDX-License-Identifier: MIT
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// One token of an encoded text. The span lets views highlight the text a token came from.
struct Token {
    int64_t id = -1;
    std::string piece; ///< the vocabulary entry (e.g. "Ġthe", "##ing", "<0x0A>")
    size_t begin = 0; ///< byte span in the input text, end exclusive;
    size_t end = 0; ///< special tokens have begin == end at their position
    bool special = false;
    int typeId = 0; ///< segment of a text pair (BERT token_type_ids); spans refer to that segment's text
};

/// Ids of the special tokens; -1 where the tokenizer has none.
struct SpecialTokenIds {
    int64_t bos = -1;
    int64_t eos = -1;
    int64_t pad = -1;
    int64_t cls = -1;
    int64_t sep = -1;
    int64_t mask = -1;
    int64_t unk = -1;
};

/// Text <-> ids for one model. Implementations are immutable after loading, so one instance may be shared.
class Tokenizer {
public:
    virtual ~Tokenizer() = default;

    /// Encodes `text`; with addSpecialTokens the model's framing tokens are added ([CLS] ... [SEP], BOS, ...).
    virtual std::vector<Token> encode(const std::string& text, bool addSpecialTokens = true) const = 0;
    /// Encodes a text pair. The default appends the second text's tokens (no special tokens of its own) with
    /// typeId 1; BERT frames them as [CLS] a [SEP] b [SEP], tokenizer.json post-processors as they say.
    virtual std::vector<Token> encodePair(
        const std::string& first, const std::string& second, bool addSpecialTokens = true) const;
    /// Encodes a translation target (the decoder side). The default is encode(); MarianMT has its own target model.
    virtual std::vector<Token> encodeTarget(const std::string& text, bool addSpecialTokens = true) const;
    virtual std::string decode(const std::vector<int64_t>& ids, bool skipSpecial = false) const = 0;
    /// Display text of one token: the text it decodes to (" the" for "Ġthe"), bytes that are not valid UTF-8
    /// on their own shown as "<0xNN>"; special tokens show their piece ("[CLS]").
    virtual std::string tokenText(int64_t id) const = 0;
    virtual int64_t vocabSize() const = 0;
    /// A short name of the algorithm, e.g. "byte-level BPE" (for `info` and the UI).
    virtual std::string kind() const = 0;
    /// The file the vocabulary came from.
    virtual std::string path() const = 0;

    const SpecialTokenIds& specialIds() const { return m_special; }
    int64_t bosId() const { return m_special.bos; }
    int64_t eosId() const { return m_special.eos; }
    int64_t padId() const { return m_special.pad; }
    int64_t clsId() const { return m_special.cls; }
    int64_t sepId() const { return m_special.sep; }
    int64_t maskId() const { return m_special.mask; }
    int64_t unkId() const { return m_special.unk; }
    virtual bool isSpecial(int64_t id) const;

protected:
    SpecialTokenIds m_special;
};

/// The ids of `tokens`, in order.
std::vector<int64_t> tokenIds(const std::vector<Token>& tokens);

} // namespace attn
