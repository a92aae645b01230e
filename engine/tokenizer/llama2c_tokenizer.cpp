// SPDX-License-Identifier: MIT
#include "tokenizer/llama2c_tokenizer.h"

#include "core/error.h"
#include "core/mapped_file.h"
#include "tokenizer/unicode.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace attn {
namespace {

constexpr int64_t kBos = 1;
constexpr int64_t kEos = 2;
constexpr int64_t kByteOffset = 3; // run.c: the first three entries are <unk>, <s>, </s>
// run.c sizes its merge buffer from max_token_length; anything larger is not a real tokenizer.bin.
constexpr int32_t kMaxTokenLengthLimit = 1 << 16;

/// run.c parses "<0x%02hhX>"; returns the byte or -1.
int byteOfPiece(const std::string& piece)
{
    if (piece.size() != 6 || piece.compare(0, 3, "<0x") != 0 || piece[5] != '>') return -1;
    int value = 0;
    for (size_t i = 3; i < 5; ++i) {
        const char c = piece[i];
        int digit;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if (c >= 'A' && c <= 'F')
            digit = c - 'A' + 10;
        else if (c >= 'a' && c <= 'f')
            digit = c - 'a' + 10;
        else
            return -1;
        value = value * 16 + digit;
    }
    return value;
}

} // namespace

Llama2cTokenizer::Llama2cTokenizer(const std::string& path, int64_t vocabSize)
    : m_path(path)
{
    const MappedFile file(path);
    const uint8_t* p = file.data();
    const size_t size = file.size();
    size_t pos = 0;
    const auto readInt = [&](const char* what) {
        if (pos + 4 > size) throw Error(path, std::string("truncated: the file ends inside ") + what);
        int32_t v;
        std::memcpy(&v, p + pos, 4);
        pos += 4;
        return v;
    };
    m_maxTokenLength = readInt("the max_token_length header");
    if (m_maxTokenLength <= 0 || m_maxTokenLength > kMaxTokenLengthLimit)
        throw Error(path,
            "max_token_length is " + std::to_string(m_maxTokenLength)
                + "; not a llama2.c tokenizer.bin (e.g. tok512.bin)");
    while (vocabSize <= 0 ? pos < size : static_cast<int64_t>(m_pieces.size()) < vocabSize) {
        const std::string where = "token " + std::to_string(m_pieces.size());
        float score;
        if (pos + 4 > size)
            throw Error(path,
                "truncated: the file ends at " + where + " of the model's " + std::to_string(vocabSize)
                    + "; is this the tokenizer of this model?");
        std::memcpy(&score, p + pos, 4);
        pos += 4;
        const int32_t len = readInt(where.c_str());
        if (len < 0 || len > m_maxTokenLength)
            throw Error(path,
                "corrupt: " + where + " has length " + std::to_string(len) + " (max_token_length "
                    + std::to_string(m_maxTokenLength) + ")");
        if (pos + static_cast<size_t>(len) > size)
            throw Error(path, "truncated: the file ends inside the bytes of " + where);
        m_pieces.emplace_back(reinterpret_cast<const char*>(p + pos), static_cast<size_t>(len));
        m_scores.push_back(score);
        pos += static_cast<size_t>(len);
    }
    if (pos != size)
        throw Error(path,
            "holds more than the model's " + std::to_string(vocabSize)
                + " tokens; is this the tokenizer of this model?");
    if (m_pieces.size() < 3)
        throw Error(
            path, "holds " + std::to_string(m_pieces.size()) + " tokens; llama2.c needs at least <unk>, <s>, </s>");
    m_special.unk = 0;
    m_special.bos = kBos;
    m_special.eos = kEos;
    index();
}

Llama2cTokenizer::Llama2cTokenizer(
    std::string path, std::vector<std::string> pieces, std::vector<float> scores, SpecialTokenIds special)
    : m_path(std::move(path))
    , m_pieces(std::move(pieces))
    , m_scores(std::move(scores))
    , m_kind("SentencePiece BPE")
{
    if (m_scores.size() != m_pieces.size())
        throw Error(m_path,
            std::to_string(m_pieces.size()) + " pieces but " + std::to_string(m_scores.size()) + " scores");
    for (const std::string& piece : m_pieces)
        m_maxTokenLength = std::max(m_maxTokenLength, static_cast<int>(piece.size()));
    for (const int64_t id : { special.bos, special.eos, special.unk })
        if (id >= static_cast<int64_t>(m_pieces.size()))
            throw Error(m_path, "special token id " + std::to_string(id) + " is outside the vocabulary");
    m_special = special;
    index();
}

void Llama2cTokenizer::index()
{
    // run.c binary-searches a sorted copy; with duplicate pieces either id may come back, we keep the first.
    for (size_t id = 0; id < m_pieces.size(); ++id)
        m_ids.emplace(m_pieces[id], static_cast<int64_t>(id));
    // Byte fallback goes to the "<0xNN>" pieces; run.c assumes they follow the three specials (byte + 3).
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        const int64_t id = lookup(name);
        m_byteIds[static_cast<size_t>(b)] = id >= 0 ? id : b + kByteOffset;
    }
}

int64_t Llama2cTokenizer::lookup(const std::string& piece) const
{
    const auto it = m_ids.find(piece);
    return it == m_ids.end() ? -1 : it->second;
}

std::vector<Token> Llama2cTokenizer::encode(const std::string& text, bool addSpecialTokens) const
{
    std::vector<Token> tokens;
    if (addSpecialTokens && bosId() >= 0) tokens.push_back({ bosId(), m_pieces[static_cast<size_t>(bosId())], 0, 0, true, 0 });
    if (!text.empty()) {
        const int64_t dummy = lookup(" ");
        if (dummy < 0) throw Error(m_path, "has no \" \" token, which run.c's encode() prepends as the dummy prefix");
        tokens.push_back({ dummy, " ", 0, 0, false, 0 }); // not in the text: zero width
    }
    // One token per UTF-8 character, at most 4 bytes, exactly as run.c groups continuation bytes.
    const auto isContinuation
        = [&](size_t i) { return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80; };
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        if (!isContinuation(i)) start = i;
        if (isContinuation(i + 1) && i + 1 - start < 4) continue;
        const std::string ch = text.substr(start, i + 1 - start);
        if (const int64_t id = lookup(ch); id >= 0) {
            tokens.push_back({ id, ch, start, i + 1, false, 0 });
        } else {
            for (size_t b = start; b <= i; ++b) {
                const int64_t id = m_byteIds[static_cast<unsigned char>(text[b])];
                checkId(id);
                tokens.push_back({ id, m_pieces[static_cast<size_t>(id)], b, b + 1, false, 0 });
            }
        }
        start = i + 1; // a stray continuation byte starts a new group, as run.c resets str_len
    }
    while (true) {
        float bestScore = -1e10f;
        int64_t bestId = -1;
        size_t bestIdx = 0;
        for (size_t i = 0; i + 1 < tokens.size(); ++i) {
            const int64_t id
                = lookup(m_pieces[static_cast<size_t>(tokens[i].id)] + m_pieces[static_cast<size_t>(tokens[i + 1].id)]);
            if (id >= 0 && m_scores[static_cast<size_t>(id)] > bestScore) {
                bestScore = m_scores[static_cast<size_t>(id)];
                bestId = id;
                bestIdx = i;
            }
        }
        if (bestId < 0) break;
        Token& t = tokens[bestIdx];
        const Token& next = tokens[bestIdx + 1];
        t = { bestId, m_pieces[static_cast<size_t>(bestId)], std::min(t.begin, next.begin), std::max(t.end, next.end),
            isSpecial(bestId), 0 };
        tokens.erase(tokens.begin() + static_cast<std::ptrdiff_t>(bestIdx) + 1);
    }
    return tokens;
}

void Llama2cTokenizer::checkId(int64_t id) const
{
    if (id < 0 || id >= vocabSize())
        throw Error(
            m_path, "token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocabSize()));
}

std::string Llama2cTokenizer::pieceOutput(int64_t id, bool afterBos) const
{
    checkId(id);
    std::string piece = m_pieces[static_cast<size_t>(id)];
    if (afterBos && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
    if (const int byte = byteOfPiece(piece); byte >= 0) piece = std::string(1, static_cast<char>(byte));
    return piece;
}

std::string Llama2cTokenizer::decode(const std::vector<int64_t>& ids, bool skipSpecial) const
{
    std::string out;
    int64_t prev = -1;
    for (int64_t id : ids) {
        const int64_t before = prev;
        prev = id;
        if (id == bosId() || id == eosId() || (skipSpecial && isSpecial(id))) {
            checkId(id);
            continue;
        }
        const std::string piece = pieceOutput(id, before == bosId());
        if (piece.size() == 1) {
            const auto c = static_cast<unsigned char>(piece[0]);
            if ((c < 0x20 && !(c >= '\t' && c <= '\r')) || c == 0x7F) continue;
        }
        out += piece;
    }
    return out;
}

std::string Llama2cTokenizer::tokenText(int64_t id) const
{
    if (isSpecial(id)) { // "\n<s>\n" shows as "<s>"
        const std::string& piece = m_pieces[static_cast<size_t>(id)];
        const size_t first = piece.find_first_not_of(" \n");
        return first == std::string::npos ? piece : piece.substr(first, piece.find_last_not_of(" \n") + 1 - first);
    }
    return unicode::displayBytes(pieceOutput(id, false));
}

} // namespace attn
