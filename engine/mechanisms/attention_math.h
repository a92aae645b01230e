// SPDX-License-Identifier: MIT
#pragma once
// The dense pieces the mechanisms share: masked softmax, the head's exact attention and its masks as matrices.
#include "mechanisms/head_inputs.h"

namespace attn {

/// Row softmax of `scores` over the entries `keep` allows; masked entries are exactly 0 and a row with no visible
/// key is all zeros.
Mat maskedSoftmax(const Mat& scores, const KeepMask& keep);

/// log of maskedSoftmax, -inf where masked (the exact log-probabilities the KL divergences are measured against).
Mat maskedLogSoftmax(const Mat& scores, const KeepMask& keep);

/// q k^T * scale plus the head's additive bias where it has one (T5): the model's scores for any q, k of the head's
/// shape (its own, pooled into groups, re-rotated), or with another scale.
Mat dotScores(const HeadInputs& inputs, const Mat& q, const Mat& k, double scale);

/// The head's scores as the model computes them: q k^T * scale (+ bias), or its learned score function (RNN
/// seq2seq).
Mat exactScores(const HeadInputs& inputs);

/// The head as the model runs it: softmax of exactScores under the model's mask, in float64 (the sampled rows'
/// curves and sweeps compare float64 mechanisms with it at 1e-12).
Mat exactProbabilities(const HeadInputs& inputs);

/// The head's attention and output as the engine's float32 kernel computes them (multiHeadAttention: the model's
/// own attention, which `attnscope-cli attention` writes), as float64 matrices: probs [T, keys], out [T, dv]. A head
/// with a learned score function (RNN seq2seq) has no such kernel: exactProbabilities and its product with v.
struct ModelAttention {
    Mat probs, out;
};
ModelAttention modelAttention(const HeadInputs& inputs);

/// The engine's float32 kernel (multiHeadAttention) on the head's q, k, v and mask, with the score scale `scale` and
/// the additive score bias `bias` ([T, keys]; empty: none) in place of the head's own: the ALiBi what-if computed in
/// float32 as the model computes its own attention. For heads that score q k^T.
ModelAttention kernelAttention(const HeadInputs& inputs, double scale, const Mat& bias);

/// The row softmax of the head's scores over the entries `keep` allows and its output: maskedSoftmax(exactScores(
/// inputs), keep) and that times v, with each score and each product term computed only where `keep` allows (a
/// sparsity pattern keeps a few keys per row; the dense [T, T] score and output products took most of a 4,096-token
/// head switch). probs [T, keys] (0 where masked; a row with no visible key is all zeros), out [T, dv]. For heads that
/// score q k^T * scale (+ bias), not a learned score function.
struct KeptAttention {
    Mat probs, out;
};
KeptAttention keptAttention(const HeadInputs& inputs, const KeepMask& keep);

/// Every key visible to every query (for mechanisms that ignore the mask by design).
KeepMask fullKeepMask(int64_t tokens);

/// `m` rounded to float32 values. Drawn and fitted parameters (and synthetic inputs) are used as float32 numbers, so
/// the .npy files written for them are exactly what ran and an independent check can recompute every result.
Mat roundedToFloat(const Mat& m);

/// A keep mask as a 0/1 matrix (for mask.npy).
Mat keepMaskValues(const KeepMask& keep);

/// Each row's sum, its entries added in column order (as a loop along the row does), read down the columns.
Eigen::VectorXd rowSums(const Mat& m);

/// Mean over rows of the entropy -sum p log p (nats), rows with no weight skipped.
double meanRowEntropy(const Mat& probs);

/// Mean over rows of the largest weight, rows with no weight skipped.
double meanRowMax(const Mat& probs);

} // namespace attn
