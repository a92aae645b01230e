// SPDX-License-Identifier: MIT
#include "attention/seq2seq_scores.h"

#include "core/error.h"

#include <Eigen/Dense>

#include <string>

namespace attn {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using Stride = Eigen::OuterStride<>;
using ConstStridedMap = Eigen::Map<const RowMatrix, 0, Stride>;

ConstMatrixMap matrix(const Tensor& t, const char* what, const char* fn) {
    if (t.rank() != 2)
        throw Error(std::string(fn) + ": " + what + " must be a matrix, got " + shapeToString(t.shape()));
    return ConstMatrixMap(t.data(), t.dim(0), t.dim(1));
}

void expectDim(int64_t actual, int64_t expected, const std::string& what, const char* fn) {
    if (actual != expected)
        throw Error(
            std::string(fn) + ": " + what + " is " + std::to_string(actual) + ", expected " + std::to_string(expected));
}

/// The attention vector v, [da] (or [1, da] as an nn.Linear(da, 1) weight).
Eigen::Map<const Eigen::VectorXf> vector(const Tensor& v, int64_t da, const char* fn) {
    if (!(v.rank() == 1 || (v.rank() == 2 && v.dim(0) == 1)))
        throw Error(std::string(fn) + ": v must be [" + std::to_string(da) + "], got " + shapeToString(v.shape()));
    expectDim(v.numel(), da, "v length", fn);
    return Eigen::Map<const Eigen::VectorXf>(v.data(), da);
}

/// score[t, s] = v . tanh(a[t] + b[s]) for projected decoder states a [T, da] and encoder states b [S, da].
template <class A, class B> Tensor additiveScores(const A& a, const B& b, const Eigen::Map<const Eigen::VectorXf>& v) {
    const int64_t rows = a.rows(), cols = b.rows();
    Tensor scores({ rows, cols });
    RowMatrix hidden(cols, a.cols());
    for (int64_t t = 0; t < rows; ++t) {
        hidden = (b.rowwise() + a.row(t)).array().tanh();
        Eigen::Map<Eigen::VectorXf>(scores.data() + t * cols, cols).noalias() = hidden * v;
    }
    return scores;
}

} // namespace

Tensor bahdanauScores(const Tensor& s, const Tensor& h, const Tensor& w1, const Tensor& w2, const Tensor& v) {
    const char* fn = "bahdanauScores";
    const auto S = matrix(s, "s", fn), H = matrix(h, "h", fn), W1 = matrix(w1, "W1", fn), W2 = matrix(w2, "W2", fn);
    expectDim(W1.cols(), S.cols(), "W1 columns (decoder state size)", fn);
    expectDim(W2.cols(), H.cols(), "W2 columns (encoder state size)", fn);
    expectDim(W2.rows(), W1.rows(), "W2 rows (attention size)", fn);
    const RowMatrix a = S * W1.transpose();
    const RowMatrix b = H * W2.transpose();
    return additiveScores(a, b, vector(v, W1.rows(), fn));
}

Tensor luongDotScores(const Tensor& s, const Tensor& h) {
    const char* fn = "luongDotScores";
    const auto S = matrix(s, "s", fn), H = matrix(h, "h", fn);
    expectDim(H.cols(), S.cols(), "h state size", fn);
    Tensor scores({ S.rows(), H.rows() });
    Eigen::Map<RowMatrix>(scores.data(), S.rows(), H.rows()).noalias() = S * H.transpose();
    return scores;
}

Tensor luongGeneralScores(const Tensor& s, const Tensor& h, const Tensor& w) {
    const char* fn = "luongGeneralScores";
    const auto S = matrix(s, "s", fn), H = matrix(h, "h", fn), W = matrix(w, "W", fn);
    expectDim(W.rows(), S.cols(), "W rows (decoder state size)", fn);
    expectDim(W.cols(), H.cols(), "W columns (encoder state size)", fn);
    const RowMatrix sw = S * W;
    Tensor scores({ S.rows(), H.rows() });
    Eigen::Map<RowMatrix>(scores.data(), S.rows(), H.rows()).noalias() = sw * H.transpose();
    return scores;
}

Tensor luongConcatScores(const Tensor& s, const Tensor& h, const Tensor& w, const Tensor& v) {
    const char* fn = "luongConcatScores";
    const auto S = matrix(s, "s", fn), H = matrix(h, "h", fn), W = matrix(w, "W", fn);
    const int64_t ds = S.cols(), dh = H.cols();
    expectDim(W.cols(), ds + dh, "W columns (decoder + encoder state size)", fn);
    // W [s; h] = W[:, :ds] s + W[:, ds:] h, which is Bahdanau's form with W1, W2 the two column blocks.
    const ConstStridedMap Ws(W.data(), W.rows(), ds, Stride(ds + dh));
    const ConstStridedMap Wh(W.data() + ds, W.rows(), dh, Stride(ds + dh));
    const RowMatrix a = S * Ws.transpose();
    const RowMatrix b = H * Wh.transpose();
    return additiveScores(a, b, vector(v, W.rows(), fn));
}

} // namespace attn
