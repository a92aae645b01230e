// SPDX-License-Identifier: MIT
// Scoring functions on the head's own q and k: scaled dot (the model's), unscaled dot, Luong general, Luong concat /
// Bahdanau additive, and the ALiBi bias as a what-if. The model's mask applies to all of them.
#include "attention/position_bias.h"
#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/mechanism.h"
#include "mechanisms/position_tables.h"
#include "mechanisms/random_stream.h"

#include <Eigen/QR>

#include <cmath>

namespace attn {

namespace {

/// Luong general, score = q W k^T: W is the minimum-norm least-squares fit to the model's scaled scores over every
/// [T, T] entry, W = pinv(q) S pinv(k)^T. The scaled dot product is the special case W = I / sqrt(d), so where q and
/// k span their space the fit recovers it; what it changes shows what the head's few tokens leave undetermined.
Mat fitGeneral(const HeadInputs& in, const Mat& scaledScores)
{
    const Mat qPinv = in.q.completeOrthogonalDecomposition().pseudoInverse();
    const Mat kPinv = in.k.completeOrthogonalDecomposition().pseudoInverse();
    return roundedToFloat(qPinv * scaledScores * kPinv.transpose());
}

/// Luong concat / Bahdanau additive, score = v^T tanh(W_q q + W_k k) with h = 2d hidden units. W_q and W_k are
/// seeded random with entries N(0, 1 / (2d rms^2)), rms the inputs' root mean square, so the tanh sees unit-variance
/// arguments; v is then the least-squares fit to the model's scaled scores over the visible entries. Returns
/// [h, 2d + 1]: columns W_q | W_k | v.
Mat fitTanhScores(const HeadInputs& in, const Mat& scaledScores, const KeepMask& keep, uint64_t seed)
{
    const int64_t T = in.tokens(), d = in.dim(), h = 2 * d;
    const double rms = std::sqrt((in.q.squaredNorm() + in.k.squaredNorm()) / static_cast<double>(2 * T * d));
    const double sigma = 1.0 / (std::sqrt(static_cast<double>(2 * d)) * (rms > 0.0 ? rms : 1.0));
    RandomStream rng(seed);
    Mat params(h, 2 * d + 1);
    for (int64_t r = 0; r < h; ++r)
        for (int64_t c = 0; c < 2 * d; ++c)
            params(r, c) = static_cast<float>(sigma * rng.normal());
    const Mat qh = in.q * params.leftCols(d).transpose(), kh = in.k * params.middleCols(d, d).transpose();
    const int64_t visible = keep.cast<int64_t>().sum();
    Mat features(visible, h);
    Eigen::VectorXd target(visible);
    int64_t row = 0;
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j)
            if (keep(i, j)) {
                features.row(row) = (qh.row(i) + kh.row(j)).array().tanh().matrix();
                target(row++) = scaledScores(i, j);
            }
    params.col(2 * d) = roundedToFloat(features.completeOrthogonalDecomposition().solve(target));
    return params;
}

Mat tanhScores(const HeadInputs& in, const Mat& params)
{
    const int64_t T = in.tokens(), d = in.dim();
    const Mat qh = in.q * params.leftCols(d).transpose(), kh = in.k * params.middleCols(d, d).transpose();
    const Eigen::VectorXd v = params.col(2 * d);
    Mat scores(T, T);
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j)
            scores(i, j) = (qh.row(i) + kh.row(j)).array().tanh().matrix().dot(v);
    return scores;
}

} // namespace

MechanismResult runScoreFunction(const HeadInputs& in, const MechanismSpec& spec)
{
    const KeepMask keep = modelKeepMask(in);
    const Mat raw = in.q * in.k.transpose();
    const Mat scaled = raw * in.scale;
    MechanismResult r;
    Mat scores;
    switch (spec.kind) {
    case MechanismKind::Exact:
        scores = scaled;
        r.notes["scores"] = "q k^T * scale (the model's own)";
        break;
    case MechanismKind::Unscaled:
        scores = raw;
        r.notes["scores"] = "q k^T without the 1/sqrt(d_k) scale";
        break;
    case MechanismKind::General: {
        const Mat w = fitGeneral(in, scaled);
        scores = in.q * w * in.k.transpose();
        r.arrays.push_back({ "params", w, {} });
        r.notes["scores"] = "Luong general q W k^T";
        r.notes["params"] = "fitted: W [d, d] = pinv(q) (q k^T * scale) pinv(k)^T, the minimum-norm least-squares fit "
                            "to the model's scaled scores over all T x T entries";
        break;
    }
    case MechanismKind::Concat:
    case MechanismKind::Additive: {
        // The two are one function family (W_a [q; k] = W_q q + W_k k); they differ here only in their seed.
        const bool concat = spec.kind == MechanismKind::Concat;
        const Mat params = fitTanhScores(in, scaled, keep, concat ? 1 : 2);
        scores = tanhScores(in, params);
        r.arrays.push_back({ "params", params, {} });
        r.notes["scores"] = concat ? "Luong concat v^T tanh(W_a [q; k]) with W_a = [W_q | W_k]"
                                   : "Bahdanau additive v^T tanh(W_q q + W_k k)";
        r.notes["params"] = std::string("params [2d, 2d + 1] = W_q | W_k | v: W_q, W_k seeded random (RandomStream(")
            + (concat ? "1" : "2")
            + "), entries N(0, 1 / (2d rms^2)) with rms the root mean square of q and k; v fitted by least squares to "
              "the model's scaled scores over the visible entries";
        break;
    }
    case MechanismKind::Alibi: {
        const int64_t head = std::max<int64_t>(in.head, 0);
        const Mat bias = alibiMatrix(in.tokens(), in.numHeads, head);
        scores = scaled + bias;
        r.arrays.push_back({ "bias", bias, {} });
        r.numbers["alibi_slope"] = alibiSlopes(in.numHeads)[static_cast<size_t>(head)];
        r.notes["scores"] = "q k^T * scale + slope * (j - i), ALiBi (Press et al.) added to the head's own q, k "
                            "(bias.npy), the slope of this head among the layer's heads";
        break;
    }
    default:
        throw Error("variant '" + spec.text + "' is not a scoring function");
    }
    r.probs = maskedSoftmax(scores, keep);
    r.out = r.probs * in.v;
    return r;
}

} // namespace attn
