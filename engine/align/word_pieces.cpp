// SPDX-License-Identifier: MIT
#include "align/word_pieces.h"

#include "core/error.h"

#include <algorithm>

namespace attn {
namespace {

bool startsWith(const std::string& s, const std::string& prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

} // namespace

std::vector<int64_t> wordIndexOfPieces(const std::vector<std::string>& pieces, const std::vector<bool>& special)
{
    if (!special.empty() && special.size() != pieces.size())
        throw Error("wordIndexOfPieces: " + std::to_string(special.size()) + " special flags for "
            + std::to_string(pieces.size()) + " pieces");
    const bool wordPiece
        = std::any_of(pieces.begin(), pieces.end(), [](const std::string& p) { return startsWith(p, "##"); });
    std::vector<int64_t> out(pieces.size(), -1);
    int64_t word = -1;
    for (size_t k = 0; k < pieces.size(); ++k) {
        if (!special.empty() && special[k]) continue;
        const std::string& p = pieces[k];
        const bool starts
            = wordPiece ? !startsWith(p, "##") : startsWith(p, "\xE2\x96\x81") || startsWith(p, "\xC4\xA0");
        if (starts || word < 0) ++word;
        out[k] = word;
    }
    return out;
}

int64_t wordCount(const std::vector<int64_t>& wordOfPiece)
{
    return wordOfPiece.empty() ? 0 : *std::max_element(wordOfPiece.begin(), wordOfPiece.end()) + 1;
}

Tensor wordAttention(
    const Tensor& pieceAttention, const std::vector<int64_t>& targetWords, const std::vector<int64_t>& sourceWords)
{
    const int64_t Tp = pieceAttention.dim(0), Sp = pieceAttention.dim(1);
    if (pieceAttention.rank() != 2 || static_cast<int64_t>(targetWords.size()) != Tp
        || static_cast<int64_t>(sourceWords.size()) != Sp)
        throw Error("wordAttention: attention " + shapeToString(pieceAttention.shape()) + " does not fit "
            + std::to_string(targetWords.size()) + " target and " + std::to_string(sourceWords.size())
            + " source pieces");
    const int64_t Tw = wordCount(targetWords), Sw = wordCount(sourceWords);
    Tensor out({ Tw, Sw });
    std::vector<int64_t> piecesOfWord(static_cast<size_t>(Tw), 0);
    for (int64_t t = 0; t < Tp; ++t) {
        if (targetWords[t] < 0) continue;
        ++piecesOfWord[targetWords[t]];
        for (int64_t s = 0; s < Sp; ++s)
            if (sourceWords[s] >= 0)
                out.data()[targetWords[t] * Sw + sourceWords[s]] += pieceAttention.data()[t * Sp + s];
    }
    for (int64_t w = 0; w < Tw; ++w)
        for (int64_t s = 0; s < Sw; ++s)
            out.data()[w * Sw + s] /= static_cast<float>(std::max<int64_t>(piecesOfWord[w], 1));
    return out;
}

} // namespace attn
