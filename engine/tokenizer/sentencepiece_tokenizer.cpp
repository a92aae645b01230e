// SPDX-License-Identifier: MIT
#include "tokenizer/sentencepiece_tokenizer.h"

#include "core/error.h"
#include "tokenizer/unicode.h"

#include <sentencepiece_processor.h>

#include <algorithm>

namespace attn {

SentencePieceTokenizer::SentencePieceTokenizer(const std::string& path)
    : m_path(path)
    , m_sp(std::make_unique<sentencepiece::SentencePieceProcessor>())
{
    const auto status = m_sp->Load(path);
    if (!status.ok()) throw Error(path, "not a readable SentencePiece model: " + status.ToString());
    m_special.unk = m_sp->unk_id();
    m_special.bos = m_sp->bos_id();
    m_special.eos = m_sp->eos_id();
    m_special.pad = m_sp->pad_id();
}

SentencePieceTokenizer::~SentencePieceTokenizer() = default;

int64_t SentencePieceTokenizer::vocabSize() const
{
    return m_sp->GetPieceSize();
}

bool SentencePieceTokenizer::isSpecial(int64_t id) const
{
    return id >= 0 && id < vocabSize()
        && (m_sp->IsControl(static_cast<int>(id)) || m_sp->IsUnknown(static_cast<int>(id)));
}

void SentencePieceTokenizer::checkId(int64_t id) const
{
    if (id < 0 || id >= vocabSize())
        throw Error(
            m_path, "token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(vocabSize()));
}

std::vector<Token> SentencePieceTokenizer::encode(const std::string& text, bool addSpecialTokens) const
{
    std::vector<Token> out;
    if (addSpecialTokens && m_special.bos >= 0)
        out.push_back({ m_special.bos, m_sp->IdToPiece(static_cast<int>(m_special.bos)), 0, 0, true, 0 });
    const auto spt = m_sp->EncodeAsImmutableProto(text);
    const size_t first = out.size();
    for (const auto& p : spt.pieces()) {
        const int64_t id = p.id();
        out.push_back({ id, p.piece(), p.begin(), p.end(), isSpecial(id), 0 });
    }
    // SentencePiece gives the byte-fallback pieces of one character empty spans and the whole character to the
    // last; when there is one piece per byte, each gets its own byte.
    for (size_t i = first; i < out.size();) {
        size_t j = i;
        while (j < out.size() && m_sp->IsByte(static_cast<int>(out[j].id)))
            ++j;
        if (j > i && out[j - 1].end - out[i].begin == j - i)
            for (size_t k = i; k < j; ++k)
                out[k].end = (out[k].begin = out[i].begin + (k - i)) + 1;
        i = std::max(j, i + 1);
    }
    return out;
}

std::string SentencePieceTokenizer::decode(const std::vector<int64_t>& ids, bool skipSpecial) const
{
    std::vector<int> kept;
    for (int64_t id : ids) {
        checkId(id);
        if (!(skipSpecial && isSpecial(id))) kept.push_back(static_cast<int>(id));
    }
    return m_sp->DecodeIds(kept);
}

std::string SentencePieceTokenizer::tokenText(int64_t id) const
{
    checkId(id);
    const int i = static_cast<int>(id);
    const std::string& piece = m_sp->IdToPiece(i);
    if (isSpecial(id)) return piece;
    if (m_sp->IsByte(i)) // "<0xNN>"
        return unicode::displayBytes(std::string(1, static_cast<char>(std::stoi(piece.substr(3, 2), nullptr, 16))));
    // DecodeIds would drop the leading space of a lone word piece; show "▁" as the space it stands for.
    std::string text;
    for (size_t pos = 0; pos < piece.size();) {
        if (piece.compare(pos, 3, "\xE2\x96\x81") == 0) {
            text += ' ';
            pos += 3;
        } else {
            text += piece[pos++];
        }
    }
    return text;
}

} // namespace attn
