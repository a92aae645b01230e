// SPDX-License-Identifier: MIT
#include "tokenizer/bpe_tokenizer.h"

#include "core/error.h"
#include "tokenizer/gpt2_pretokenizer.h"
#include "tokenizer/unicode.h"

#include <limits>

namespace attn {
namespace {

uint64_t pairKey(int64_t left, int64_t right)
{
    return (static_cast<uint64_t>(left) << 32) | static_cast<uint64_t>(right);
}

const std::unordered_map<std::string, unsigned char>& unicodeToByte()
{
    static const auto table = [] {
        std::unordered_map<std::string, unsigned char> t;
        for (int b = 0; b < 256; ++b)
            t[byteToUnicode()[static_cast<size_t>(b)]] = static_cast<unsigned char>(b);
        return t;
    }();
    return table;
}

} // namespace

const std::vector<std::string>& byteToUnicode()
{
    static const auto table = [] {
        std::vector<std::string> t(256);
        char32_t next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            unicode::appendUtf8(t[static_cast<size_t>(b)], printable ? static_cast<char32_t>(b) : next++);
        }
        return t;
    }();
    return table;
}

BpeTokenizer::BpeTokenizer(Spec spec)
    : m_spec(std::move(spec))
{
    m_special = m_spec.special;
    // The post-processor's ids come from the file: refused when it loads, not at the first text with special tokens.
    for (const std::vector<int64_t>* ids : { &m_spec.prefix, &m_spec.suffix, &m_spec.pairMiddle })
        for (const int64_t id : *ids)
            if (id < 0 || id >= vocabSize())
                throw Error(m_spec.path, "special token id " + std::to_string(id) + " is outside the vocabulary");
    for (size_t id = 0; id < m_spec.vocab.size(); ++id)
        if (!m_spec.vocab[id].empty()) m_ids.emplace(m_spec.vocab[id], static_cast<int64_t>(id));
    const auto idOf = [&](const std::string& piece, size_t rank) {
        const auto it = m_ids.find(piece);
        if (it == m_ids.end())
            throw Error(m_spec.mergesPath,
                "merge " + std::to_string(rank + 1) + " uses '" + piece + "', which is not in the vocabulary "
                    + m_spec.path + " (truncated or mismatched vocabulary?)");
        return it->second;
    };
    for (size_t rank = 0; rank < m_spec.merges.size(); ++rank) {
        const auto& [a, b] = m_spec.merges[rank];
        const uint64_t key = pairKey(idOf(a, rank), idOf(b, rank));
        // A repeated merge keeps its first (best) rank, as in Hugging Face tokenizers.
        m_merges.emplace(key, Merge { static_cast<int>(rank), idOf(a + b, rank) });
    }
}

bool BpeTokenizer::isSpecial(int64_t id) const
{
    const AddedTokens::Entry* e = m_spec.added.find(id);
    return e ? e->special : Tokenizer::isSpecial(id);
}

Token BpeTokenizer::specialToken(int64_t id, size_t at) const
{
    if (id < 0 || id >= vocabSize())
        throw Error(m_spec.path, "special token id " + std::to_string(id) + " is outside the vocabulary");
    const AddedTokens::Entry* e = m_spec.added.find(id);
    return { id, e ? e->content : m_spec.vocab[static_cast<size_t>(id)], at, at, true, 0 };
}

void BpeTokenizer::encodeWord(
    const std::string& text, size_t begin, size_t end, bool prefixSpace, size_t offset, std::vector<Token>& out) const
{
    struct Symbol {
        int64_t id;
        size_t begin, end;
    };
    std::vector<Symbol> symbols;
    std::string whole;
    const auto addByte = [&](unsigned char byte, size_t b, size_t e) {
        const std::string& ch = byteToUnicode()[byte];
        whole += ch;
        const auto it = m_ids.find(ch);
        if (it == m_ids.end()) {
            if (m_special.unk < 0)
                throw Error(m_spec.path,
                    "the byte-level vocabulary has no token for byte " + std::to_string(byte)
                        + " and no unknown token");
            symbols.push_back({ m_special.unk, b, e });
        } else {
            symbols.push_back({ it->second, b, e });
        }
    };
    if (prefixSpace) addByte(' ', begin, begin); // not in the text: zero width at the word start
    for (size_t i = begin; i < end; ++i)
        addByte(static_cast<unsigned char>(text[i]), i, i + 1);

    if (m_spec.ignoreMerges) {
        if (const auto it = m_ids.find(whole); it != m_ids.end()) {
            out.push_back({ it->second, whole, offset + begin, offset + end, false, 0 });
            return;
        }
    }
    while (symbols.size() > 1) {
        int bestRank = std::numeric_limits<int>::max();
        size_t best = 0;
        int64_t result = -1;
        for (size_t i = 0; i + 1 < symbols.size(); ++i) {
            const auto it = m_merges.find(pairKey(symbols[i].id, symbols[i + 1].id));
            if (it != m_merges.end() && it->second.rank < bestRank) {
                bestRank = it->second.rank;
                best = i;
                result = it->second.result;
            }
        }
        if (result < 0) break;
        symbols[best] = { result, symbols[best].begin, symbols[best + 1].end };
        symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    }
    for (const Symbol& s : symbols)
        out.push_back({ s.id, m_spec.vocab[static_cast<size_t>(s.id)], offset + s.begin, offset + s.end, false, 0 });
}

void BpeTokenizer::encodeText(const std::string& text, size_t offset, std::vector<Token>& out) const
{
    const bool prefixSpace = m_spec.addPrefixSpace && !text.empty() && text[0] != ' ';
    bool first = true;
    for (const auto& [begin, end] : gpt2PreTokenize(text)) {
        encodeWord(text, begin, end, prefixSpace && first, offset, out);
        first = false;
    }
}

std::vector<Token> BpeTokenizer::encode(const std::string& text, bool addSpecialTokens) const
{
    std::vector<Token> out;
    if (addSpecialTokens)
        for (int64_t id : m_spec.prefix)
            out.push_back(specialToken(id, 0));
    for (const AddedTokens::Segment& s : m_spec.added.split(text)) {
        if (s.id >= 0) {
            const AddedTokens::Entry* e = m_spec.added.find(s.id);
            out.push_back({ s.id, e->content, s.begin, s.end, e->special, 0 });
        } else {
            encodeText(text.substr(s.begin, s.end - s.begin), s.begin, out);
        }
    }
    if (addSpecialTokens)
        for (int64_t id : m_spec.suffix)
            out.push_back(specialToken(id, text.size()));
    return out;
}

std::vector<Token> BpeTokenizer::encodePair(
    const std::string& first, const std::string& second, bool addSpecialTokens) const
{
    std::vector<Token> out = encode(first, false);
    std::vector<Token> tail = encode(second, false);
    if (addSpecialTokens) {
        std::vector<Token> framed;
        for (int64_t id : m_spec.prefix)
            framed.push_back(specialToken(id, 0));
        framed.insert(framed.end(), out.begin(), out.end());
        for (int64_t id : m_spec.pairMiddle)
            framed.push_back(specialToken(id, first.size()));
        out = std::move(framed);
        for (int64_t id : m_spec.suffix)
            tail.push_back(specialToken(id, second.size()));
    }
    for (Token& t : tail) {
        t.typeId = 1;
        out.push_back(std::move(t));
    }
    return out;
}

std::string BpeTokenizer::pieceBytes(int64_t id) const
{
    if (id < 0 || id >= vocabSize())
        throw Error(m_spec.path,
            "token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocabSize()));
    if (const AddedTokens::Entry* e = m_spec.added.find(id)) return e->content;
    const std::string& piece = m_spec.vocab[static_cast<size_t>(id)];
    std::string bytes;
    for (const unicode::CodePoint& c : unicode::decodeUtf8(piece)) {
        const std::string ch = piece.substr(c.begin, c.end - c.begin);
        const auto it = unicodeToByte().find(ch);
        if (it != unicodeToByte().end())
            bytes += static_cast<char>(it->second);
        else
            bytes += ch; // not a byte character: kept as text
    }
    return bytes;
}

std::string BpeTokenizer::decode(const std::vector<int64_t>& ids, bool skipSpecial) const
{
    std::string out;
    for (int64_t id : ids)
        if (!(skipSpecial && isSpecial(id))) out += pieceBytes(id);
    return out;
}

std::string BpeTokenizer::tokenText(int64_t id) const
{
    return unicode::displayBytes(pieceBytes(id));
}

} // namespace attn
