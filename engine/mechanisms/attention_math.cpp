// SPDX-License-Identifier: MIT
#include "mechanisms/attention_math.h"

#include <cmath>
#include <limits>

namespace attn {

Mat maskedLogSoftmax(const Mat& scores, const KeepMask& keep)
{
    constexpr double minusInf = -std::numeric_limits<double>::infinity();
    Mat out = Mat::Constant(scores.rows(), scores.cols(), minusInf);
    for (Eigen::Index i = 0; i < scores.rows(); ++i) {
        double top = minusInf;
        for (Eigen::Index j = 0; j < scores.cols(); ++j)
            if (keep(i, j)) top = std::max(top, scores(i, j));
        if (top == minusInf) continue;
        double sum = 0.0;
        for (Eigen::Index j = 0; j < scores.cols(); ++j)
            if (keep(i, j)) sum += std::exp(scores(i, j) - top);
        const double lse = top + std::log(sum);
        for (Eigen::Index j = 0; j < scores.cols(); ++j)
            if (keep(i, j)) out(i, j) = scores(i, j) - lse;
    }
    return out;
}

Mat maskedSoftmax(const Mat& scores, const KeepMask& keep)
{
    // Eigen's vectorised exp clamps its argument, so exp(-inf) would be ~1e-308 rather than 0: masked entries are
    // set to exactly 0 instead.
    return (keep.array() != 0).select(maskedLogSoftmax(scores, keep).array().exp(), 0.0);
}

Mat dotScores(const HeadInputs& inputs, const Mat& q, const Mat& k, double scale)
{
    Mat scores = q * k.transpose() * scale;
    if (inputs.bias.size()) scores += inputs.bias;
    return scores;
}

Mat exactScores(const HeadInputs& inputs)
{
    if (inputs.learned.kind != LearnedScoreKind::None) return learnedScores(inputs.learned, inputs.q, inputs.k);
    return dotScores(inputs, inputs.q, inputs.k, inputs.scale);
}

Mat exactProbabilities(const HeadInputs& inputs)
{
    return maskedSoftmax(exactScores(inputs), modelKeepMask(inputs));
}

KeepMask fullKeepMask(int64_t tokens)
{
    return KeepMask::Ones(tokens, tokens);
}

Mat roundedToFloat(const Mat& m)
{
    return m.cast<float>().cast<double>();
}

Mat keepMaskValues(const KeepMask& keep)
{
    return keep.cast<double>();
}

double meanRowEntropy(const Mat& probs)
{
    double total = 0.0;
    int64_t rows = 0;
    for (Eigen::Index i = 0; i < probs.rows(); ++i) {
        if (probs.row(i).sum() <= 0.0) continue;
        double h = 0.0;
        for (Eigen::Index j = 0; j < probs.cols(); ++j)
            if (probs(i, j) > 0.0) h -= probs(i, j) * std::log(probs(i, j));
        total += h;
        ++rows;
    }
    return rows ? total / static_cast<double>(rows) : 0.0;
}

double meanRowMax(const Mat& probs)
{
    double total = 0.0;
    int64_t rows = 0;
    for (Eigen::Index i = 0; i < probs.rows(); ++i) {
        if (probs.row(i).sum() <= 0.0) continue;
        total += probs.row(i).maxCoeff();
        ++rows;
    }
    return rows ? total / static_cast<double>(rows) : 0.0;
}

} // namespace attn
