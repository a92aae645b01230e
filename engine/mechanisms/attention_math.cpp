// SPDX-License-Identifier: MIT
#include "mechanisms/attention_math.h"

#include "attention/attention.h"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace attn {

// The matrices are column-major: the loops below go down each column and keep one running value per row, so every
// row still takes its keys in order (the same numbers, to the bit, as a loop along each row) without striding a whole
// column between two entries (at 4,096 tokens that stride missed the cache on every entry).

Mat maskedLogSoftmax(const Mat& scores, const KeepMask& keep)
{
    constexpr double minusInf = -std::numeric_limits<double>::infinity();
    const Eigen::Index rows = scores.rows(), cols = scores.cols();
    Eigen::VectorXd top = Eigen::VectorXd::Constant(rows, minusInf), sum = Eigen::VectorXd::Zero(rows);
    for (Eigen::Index j = 0; j < cols; ++j)
        for (Eigen::Index i = 0; i < rows; ++i)
            if (keep(i, j)) top(i) = std::max(top(i), scores(i, j));
    for (Eigen::Index j = 0; j < cols; ++j)
        for (Eigen::Index i = 0; i < rows; ++i)
            if (keep(i, j)) sum(i) += std::exp(scores(i, j) - top(i));
    Eigen::VectorXd lse(rows);
    for (Eigen::Index i = 0; i < rows; ++i)
        lse(i) = top(i) + std::log(sum(i));
    Mat out = Mat::Constant(rows, cols, minusInf);
    for (Eigen::Index j = 0; j < cols; ++j)
        for (Eigen::Index i = 0; i < rows; ++i)
            if (keep(i, j) && top(i) != minusInf) out(i, j) = scores(i, j) - lse(i);
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

ModelAttention modelAttention(const HeadInputs& inputs)
{
    if (inputs.learned.kind != LearnedScoreKind::None) {
        Mat probs = exactProbabilities(inputs);
        Mat out = probs * inputs.v;
        return { std::move(probs), std::move(out) };
    }
    return kernelAttention(inputs, inputs.scale, inputs.bias);
}

ModelAttention kernelAttention(const HeadInputs& inputs, double scale, const Mat& bias)
{
    // The inputs hold float32 values (the model's q, k, v and T5 bias, or float32 draws): exact as float.
    auto tensor = [](const Mat& m) {
        Tensor t({ 1, m.rows(), m.cols() });
        Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(t.data(), m.rows(), m.cols())
            = m.cast<float>();
        return t;
    };
    AttentionOptions options;
    options.scale = static_cast<float>(scale);
    options.mask.causal = inputs.causal;
    options.mask.slidingWindow = inputs.slidingWindow;
    Tensor biasTensor;
    if (bias.size()) {
        biasTensor = tensor(bias);
        options.mask.bias = &biasTensor;
    }
    const AttentionResult a = multiHeadAttention(tensor(inputs.q), tensor(inputs.k), tensor(inputs.v), options);
    return { matrixOf(a.probs.data(), inputs.tokens(), inputs.keyCount()),
        matrixOf(a.output.data(), inputs.tokens(), inputs.v.cols()) };
}

KeptAttention keptAttention(const HeadInputs& inputs, const KeepMask& keep)
{
    constexpr double minusInf = -std::numeric_limits<double>::infinity();
    const Eigen::Index rows = keep.rows(), keys = keep.cols();
    // Each query's visible keys in order, gathered down the columns of the column-major mask.
    std::vector<std::vector<Eigen::Index>> kept(static_cast<size_t>(rows));
    for (Eigen::Index j = 0; j < keys; ++j)
        for (Eigen::Index i = 0; i < rows; ++i)
            if (keep(i, j)) kept[static_cast<size_t>(i)].push_back(j);
    // One query at a time, so every operand is read along contiguous memory: each query's, key's and value's entries
    // are columns here.
    const Mat qT = inputs.q.transpose(), kT = inputs.k.transpose(), vT = inputs.v.transpose();
    KeptAttention r { Mat::Zero(rows, keys), Mat() };
    Mat outT = Mat::Zero(vT.rows(), rows);
    std::vector<double> scores;
    for (Eigen::Index i = 0; i < rows; ++i) {
        const std::vector<Eigen::Index>& row = kept[static_cast<size_t>(i)];
        scores.clear();
        double top = minusInf;
        for (const Eigen::Index j : row) {
            double s = qT.col(i).dot(kT.col(j)) * inputs.scale;
            if (inputs.bias.size()) s += inputs.bias(i, j);
            scores.push_back(s);
            top = std::max(top, s);
        }
        if (top == minusInf) continue; // no key visible: the row stays zero
        double sum = 0.0;
        for (const double s : scores)
            sum += std::exp(s - top);
        const double lse = top + std::log(sum);
        for (size_t n = 0; n < row.size(); ++n) {
            const double p = std::exp(scores[n] - lse);
            r.probs(i, row[n]) = p;
            outT.col(i) += p * vT.col(row[n]);
        }
    }
    r.out = outT.transpose();
    return r;
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

Eigen::VectorXd rowSums(const Mat& m)
{
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(m.rows());
    for (Eigen::Index j = 0; j < m.cols(); ++j)
        for (Eigen::Index i = 0; i < m.rows(); ++i)
            sum(i) += m(i, j);
    return sum;
}

double meanRowEntropy(const Mat& probs)
{
    const Eigen::VectorXd weight = rowSums(probs);
    Eigen::VectorXd h = Eigen::VectorXd::Zero(probs.rows());
    for (Eigen::Index j = 0; j < probs.cols(); ++j)
        for (Eigen::Index i = 0; i < probs.rows(); ++i)
            if (const double p = probs(i, j); p > 0.0) h(i) -= p * std::log(p);
    double total = 0.0;
    int64_t rows = 0;
    for (Eigen::Index i = 0; i < probs.rows(); ++i) {
        if (weight(i) <= 0.0) continue;
        total += h(i);
        ++rows;
    }
    return rows ? total / static_cast<double>(rows) : 0.0;
}

double meanRowMax(const Mat& probs)
{
    const Eigen::VectorXd weight = rowSums(probs);
    // Down the columns, as rowSums (a maximum does not depend on the order; Eigen's rowwise() strode the columns).
    if (probs.cols() == 0) return 0.0;
    Eigen::VectorXd top = probs.col(0);
    for (Eigen::Index j = 1; j < probs.cols(); ++j)
        top = top.cwiseMax(probs.col(j));
    double total = 0.0;
    int64_t rows = 0;
    for (Eigen::Index i = 0; i < probs.rows(); ++i) {
        if (weight(i) <= 0.0) continue;
        total += top(i);
        ++rows;
    }
    return rows ? total / static_cast<double>(rows) : 0.0;
}

} // namespace attn
