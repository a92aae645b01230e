// SPDX-License-Identifier: MIT
#include "mechanisms/learned_score.h"

#include "core/error.h"

namespace attn {

std::string learnedScoreName(LearnedScoreKind kind)
{
    switch (kind) {
    case LearnedScoreKind::None:
        return "none";
    case LearnedScoreKind::Additive:
        return "bahdanau";
    case LearnedScoreKind::Dot:
        return "dot";
    case LearnedScoreKind::General:
        return "general";
    case LearnedScoreKind::Concat:
        return "concat";
    case LearnedScoreKind::Location:
        return "location";
    }
    return "none";
}

Eigen::MatrixXd tanhScores(const Eigen::MatrixXd& params, const Eigen::MatrixXd& q, const Eigen::MatrixXd& k)
{
    const Eigen::Index dq = q.cols(), dk = k.cols();
    const Eigen::MatrixXd qh = q * params.leftCols(dq).transpose(), kh = k * params.middleCols(dq, dk).transpose();
    const Eigen::VectorXd v = params.col(dq + dk);
    Eigen::MatrixXd scores(q.rows(), k.rows());
    for (Eigen::Index i = 0; i < q.rows(); ++i)
        for (Eigen::Index j = 0; j < k.rows(); ++j)
            scores(i, j) = (qh.row(i) + kh.row(j)).array().tanh().matrix().dot(v);
    return scores;
}

Eigen::MatrixXd learnedScores(const LearnedScore& score, const Eigen::MatrixXd& q, const Eigen::MatrixXd& k)
{
    switch (score.kind) {
    case LearnedScoreKind::Additive:
    case LearnedScoreKind::Concat:
        return tanhScores(score.params, q, k);
    case LearnedScoreKind::Dot:
        return q * k.transpose();
    case LearnedScoreKind::General:
        return q * score.params * k.transpose();
    case LearnedScoreKind::Location: {
        const Eigen::Index dq = q.cols();
        Eigen::MatrixXd scores = q * score.params.leftCols(dq).transpose();
        scores.rowwise() += score.params.col(dq).transpose();
        return scores;
    }
    case LearnedScoreKind::None:
        break;
    }
    throw Error("learnedScores: the head has no learned score function");
}

} // namespace attn
