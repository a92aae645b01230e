// SPDX-License-Identifier: MIT
#pragma once
// Scores of the classic RNN seq2seq attentions (Bahdanau 2015, Luong 2015) for a batch of decoder states
// against encoder states. Softmax over the last axis (softmaxRowsInPlace) turns them into alignments.
#include "core/tensor.h"

namespace attn {

/// Bahdanau additive: v^T tanh(W1 s + W2 h). s [T, ds], h [S, dh], W1 [da, ds], W2 [da, dh], v [da] -> [T, S].
Tensor bahdanauScores(const Tensor& s, const Tensor& h, const Tensor& w1, const Tensor& w2, const Tensor& v);

/// Luong dot: s . h. s [T, d], h [S, d] -> [T, S].
Tensor luongDotScores(const Tensor& s, const Tensor& h);

/// Luong general: s^T W h. s [T, ds], h [S, dh], W [ds, dh] -> [T, S].
Tensor luongGeneralScores(const Tensor& s, const Tensor& h, const Tensor& w);

/// Luong concat: v^T tanh(W [s; h]). s [T, ds], h [S, dh], W [da, ds + dh], v [da] -> [T, S].
Tensor luongConcatScores(const Tensor& s, const Tensor& h, const Tensor& w, const Tensor& v);

} // namespace attn
