// SPDX-License-Identifier: MIT
#include "tokenizer/wordpiece_tokenizer.h"

#include "core/error.h"
#include "tokenizer/unicode.h"

namespace attn {
namespace {

bool isChineseChar(char32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF)
        || (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF)
        || (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

/// BERT counts every non-alphanumeric ASCII symbol as punctuation, plus Unicode P*.
bool isBertPunctuation(char32_t cp)
{
    return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)
        || unicode::isPunctuation(cp);
}

bool isControl(char32_t cp)
{
    return cp != U'\t' && cp != U'\n' && cp != U'\r' && unicode::isOther(cp);
}

void replaceAll(std::string& s, const std::string& from, const std::string& to)
{
    for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
        s.replace(pos, from.size(), to);
}

} // namespace

WordPieceTokenizer::WordPieceTokenizer(Spec spec)
    : m_spec(std::move(spec))
{
    m_special = m_spec.special;
    for (size_t id = 0; id < m_spec.vocab.size(); ++id)
        m_ids.emplace(m_spec.vocab[id], static_cast<int64_t>(id));
    if (m_special.unk < 0)
        throw Error(
            m_spec.path, "the WordPiece vocabulary has no unknown token ([UNK]); truncated or not a BERT vocabulary");
}

bool WordPieceTokenizer::isSpecial(int64_t id) const
{
    const AddedTokens::Entry* e = m_spec.added.find(id);
    return (e && e->special) || Tokenizer::isSpecial(id);
}

std::vector<WordPieceTokenizer::NormChar> WordPieceTokenizer::normalize(const std::string& text, size_t offset) const
{
    std::vector<NormChar> out;
    for (const unicode::CodePoint& c : unicode::decodeUtf8(text)) {
        const size_t b = offset + c.begin, e = offset + c.end;
        if (c.cp == 0 || c.cp == 0xFFFD || isControl(c.cp)) continue;
        if (unicode::isWhitespace(c.cp)) {
            out.push_back({ U' ', b, e });
            continue;
        }
        if (m_spec.chineseChars && isChineseChar(c.cp)) {
            out.push_back({ U' ', b, b });
            out.push_back({ c.cp, b, e });
            out.push_back({ U' ', e, e });
            continue;
        }
        // Hugging Face order: strip accents (NFD, drop Mn), then lowercase.
        std::u32string chars = m_spec.stripAccents ? unicode::decompose(c.cp) : std::u32string(1, c.cp);
        for (char32_t ch : chars) {
            if (m_spec.stripAccents && unicode::category(ch) == unicode::Category::Mn) continue;
            for (char32_t low : m_spec.lowercase ? unicode::toLower(ch) : std::u32string(1, ch))
                out.push_back({ low, b, e });
        }
    }
    return out;
}

void WordPieceTokenizer::encodeWord(const std::vector<NormChar>& word, std::vector<Token>& out) const
{
    const size_t wordBegin = word.front().begin, wordEnd = word.back().end;
    std::vector<Token> pieces;
    bool covered = word.size() <= m_spec.maxCharsPerWord;
    for (size_t start = 0; covered && start < word.size();) {
        std::string prefix = start > 0 ? "##" : "";
        std::vector<size_t> ends; // byte length of `prefix` + chars[start, k]
        std::string candidate = prefix;
        for (size_t k = start; k < word.size(); ++k) {
            unicode::appendUtf8(candidate, word[k].cp);
            ends.push_back(candidate.size());
        }
        covered = false;
        for (size_t k = word.size(); k > start; --k) {
            const std::string sub = candidate.substr(0, ends[k - start - 1]);
            const auto it = m_ids.find(sub);
            if (it != m_ids.end()) {
                pieces.push_back({ it->second, sub, word[start].begin, word[k - 1].end, false, 0 });
                start = k;
                covered = true;
                break;
            }
        }
    }
    if (!covered) {
        out.push_back(
            { m_special.unk, m_spec.vocab[static_cast<size_t>(m_special.unk)], wordBegin, wordEnd, false, 0 });
        return;
    }
    out.insert(out.end(), pieces.begin(), pieces.end());
}

void WordPieceTokenizer::encodeText(const std::string& text, size_t offset, std::vector<Token>& out) const
{
    std::vector<NormChar> word;
    const auto flush = [&] {
        if (!word.empty()) encodeWord(word, out);
        word.clear();
    };
    for (const NormChar& c : normalize(text, offset)) {
        if (unicode::isWhitespace(c.cp)) {
            flush();
        } else if (isBertPunctuation(c.cp)) {
            flush();
            word.push_back(c);
            flush();
        } else {
            word.push_back(c);
        }
    }
    flush();
}

std::vector<Token> WordPieceTokenizer::encodeBody(const std::string& text) const
{
    std::vector<Token> out;
    for (const AddedTokens::Segment& s : m_spec.added.split(text)) {
        if (s.id >= 0) {
            const AddedTokens::Entry* e = m_spec.added.find(s.id);
            out.push_back({ s.id, e->content, s.begin, s.end, e->special, 0 });
        } else {
            encodeText(text.substr(s.begin, s.end - s.begin), s.begin, out);
        }
    }
    return out;
}

Token WordPieceTokenizer::framing(int64_t id, size_t at, int typeId) const
{
    return { id, m_spec.vocab[static_cast<size_t>(id)], at, at, true, typeId };
}

std::vector<Token> WordPieceTokenizer::encode(const std::string& text, bool addSpecialTokens) const
{
    std::vector<Token> body = encodeBody(text);
    if (!addSpecialTokens) return body;
    if (m_special.cls < 0 || m_special.sep < 0)
        throw Error(m_spec.path, "the vocabulary has no [CLS]/[SEP] tokens to frame the text with");
    std::vector<Token> out { framing(m_special.cls, 0, 0) };
    out.insert(out.end(), body.begin(), body.end());
    out.push_back(framing(m_special.sep, text.size(), 0));
    return out;
}

std::vector<Token> WordPieceTokenizer::encodePair(
    const std::string& first, const std::string& second, bool addSpecialTokens) const
{
    std::vector<Token> out = encode(first, addSpecialTokens);
    std::vector<Token> tail = encodeBody(second);
    if (addSpecialTokens) tail.push_back(framing(m_special.sep, second.size(), 1));
    for (Token& t : tail) {
        t.typeId = 1;
        out.push_back(std::move(t));
    }
    return out;
}

std::string WordPieceTokenizer::decode(const std::vector<int64_t>& ids, bool skipSpecial) const
{
    // Hugging Face's WordPiece decoder: "##" pieces glue to the previous one, others get a space, then clean-up.
    std::string out;
    bool first = true;
    for (int64_t id : ids) {
        if (skipSpecial && isSpecial(id)) continue;
        const std::string piece = tokenText(id);
        if (piece.rfind("##", 0) == 0) {
            out += piece.substr(2);
        } else {
            if (!first) out += ' ';
            out += piece;
        }
        first = false;
    }
    for (const auto& [from, to] : std::initializer_list<std::pair<const char*, const char*>> { { " .", "." },
             { " ?", "?" }, { " !", "!" }, { " ,", "," }, { " ' ", "'" }, { " n't", "n't" }, { " 'm", "'m" },
             { " do not", " don't" }, { " 's", "'s" }, { " 've", "'ve" }, { " 're", "'re" } })
        replaceAll(out, from, to);
    return out;
}

std::string WordPieceTokenizer::tokenText(int64_t id) const
{
    if (id < 0 || id >= vocabSize())
        throw Error(m_spec.path,
            "token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocabSize()));
    return m_spec.vocab[static_cast<size_t>(id)];
}

} // namespace attn
