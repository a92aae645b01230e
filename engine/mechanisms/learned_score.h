// SPDX-License-Identifier: MIT
#pragma once
// A model's own trained score function (the RNN seq2seq models' Bahdanau / Luong / location attention), kept with
// the head's inputs so the exact attention and the matching scoring function use the learned parameters as they are.
#include <Eigen/Core>

#include <string>

namespace attn {

enum class LearnedScoreKind {
    None, ///< the head scores with its scaled dot product (transformers)
    Additive, ///< Bahdanau: v^T tanh(W_q q + W_k k)
    Dot, ///< Luong dot: q . k
    General, ///< Luong general: q^T W k
    Concat, ///< Luong concat: v^T tanh(W [q; k])
    Location, ///< the PyTorch tutorial's AttnDecoderRNN: softmax(W q + b) over a fixed number of positions
};

struct LearnedScore {
    LearnedScoreKind kind = LearnedScoreKind::None;
    /// Additive / Concat: [A, dq + dk + 1] = W_q | W_k | v (concat's W split at the query width); General: W [dq, dk];
    /// Location: [K, dq + 1] = W | b; Dot: empty. The layouts of the fitted `params.npy` of the same functions.
    Eigen::MatrixXd params;
};

/// "bahdanau", "dot", "general", "concat", "location" ("none" for None), as metrics.json names it.
std::string learnedScoreName(LearnedScoreKind kind);

/// score(i, j) for queries q [Tq, dq] and keys k [Tk, dk]. Location ignores k except for its row count (K).
Eigen::MatrixXd learnedScores(const LearnedScore& score, const Eigen::MatrixXd& q, const Eigen::MatrixXd& k);

/// v^T tanh(W_q q_i + W_k k_j) for params [h, dq + dk + 1] = W_q | W_k | v (the additive and concat layouts).
Eigen::MatrixXd tanhScores(const Eigen::MatrixXd& params, const Eigen::MatrixXd& q, const Eigen::MatrixXd& k);

} // namespace attn
