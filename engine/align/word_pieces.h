// SPDX-License-Identifier: MIT
#pragma once
// Sub-word pieces -> words, and piece-level attention -> word-level attention.
#include "core/tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// The word index of every piece, -1 for pieces that belong to no word (special tokens).
/// Rule: if any piece starts with "##" the pieces are WordPiece: a "##" piece continues the previous word and any
/// other piece starts one. Otherwise a piece starting with "▁" (SentencePiece) or "Ġ" (byte-level BPE) starts a word
/// and a piece without the marker continues the previous word. The first non-special piece always starts a word.
/// `special` is empty or as long as `pieces`.
std::vector<int64_t> wordIndexOfPieces(const std::vector<std::string>& pieces, const std::vector<bool>& special);

/// Number of words (max index + 1).
int64_t wordCount(const std::vector<int64_t>& wordOfPiece);

/// Piece attention [Tp, Sp] -> word attention [Tw, Sw]: the weights of a source word's pieces are summed (it is
/// the probability mass on that word), and a target word takes the mean of its pieces' rows. Pieces with index -1
/// are left out.
Tensor wordAttention(
    const Tensor& pieceAttention, const std::vector<int64_t>& targetWords, const std::vector<int64_t>& sourceWords);

} // namespace attn
