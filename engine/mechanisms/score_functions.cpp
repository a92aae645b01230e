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
#include <utility>

namespace attn {

namespace {

/// Luong general, score = q W k^T: W is the minimum-norm least-squares fit to the head's own scores over every
/// [T, keys] entry, W = pinv(q) S pinv(k)^T. The scaled dot product is the special case W = I / sqrt(d), so where q and
/// k span their space the fit recovers it; what it changes shows what the head's few tokens leave undetermined.
Mat fitGeneral(const HeadInputs& in, const Mat& exactScores)
{
    const Mat qPinv = in.q.completeOrthogonalDecomposition().pseudoInverse();
    const Mat kPinv = in.k.completeOrthogonalDecomposition().pseudoInverse();
    return roundedToFloat(qPinv * exactScores * kPinv.transpose());
}

/// Luong concat / Bahdanau additive, score = v^T tanh(W_q q + W_k k) with h = dq + dk hidden units (2d for a
/// transformer head). W_q and W_k are seeded random with entries N(0, 1 / (h rms^2)), rms the inputs' root mean
/// square, so the tanh sees unit-variance arguments; v is then the least-squares fit to the head's own scores over
/// the visible entries. Returns [h, dq + dk + 1]: columns W_q | W_k | v.
Mat fitTanhScores(const HeadInputs& in, const Mat& exactScores, const KeepMask& keep, uint64_t seed)
{
    const int64_t T = in.tokens(), S = in.keyCount(), dq = in.dim(), dk = in.k.cols(), h = dq + dk;
    const double entries = static_cast<double>(T * dq + S * dk);
    const double rms = std::sqrt((in.q.squaredNorm() + in.k.squaredNorm()) / entries);
    const double sigma = 1.0 / (std::sqrt(static_cast<double>(h)) * (rms > 0.0 ? rms : 1.0));
    RandomStream rng(seed);
    Mat params(h, h + 1);
    for (int64_t r = 0; r < h; ++r)
        for (int64_t c = 0; c < h; ++c)
            params(r, c) = static_cast<float>(sigma * rng.normal());
    const Mat qh = in.q * params.leftCols(dq).transpose(), kh = in.k * params.middleCols(dq, dk).transpose();
    const int64_t visible = keep.cast<int64_t>().sum();
    Mat features(visible, h);
    Eigen::VectorXd target(visible);
    int64_t row = 0;
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < S; ++j)
            if (keep(i, j)) {
                features.row(row) = (qh.row(i) + kh.row(j)).array().tanh().matrix();
                target(row++) = exactScores(i, j);
            }
    params.col(h) = roundedToFloat(features.completeOrthogonalDecomposition().solve(target));
    return params;
}

/// The head's learned parameters when its trained score function is `kind`, with the note saying so.
bool useLearned(const HeadInputs& in, LearnedScoreKind kind, MechanismResult& r)
{
    if (kind == LearnedScoreKind::None || in.learned.kind != kind) return false;
    if (in.learned.params.size()) r.arrays.push_back({ "params", in.learned.params, {} });
    r.notes["params"]
        = "learned: the model's own trained " + learnedScoreName(kind) + " parameters, used as they are (not fitted)";
    return true;
}

} // namespace

MechanismResult runScoreFunction(const HeadInputs& in, const MechanismSpec& spec)
{
    const bool learned = in.learned.kind != LearnedScoreKind::None;
    MechanismResult r;
    if (spec.kind == MechanismKind::Exact) {
        r.notes["scores"] = learned ? "the model's own " + learnedScoreName(in.learned.kind) + " score"
                                    : "q k^T * scale (the model's own, by the model's float32 attention kernel)";
        useLearned(in, in.learned.kind, r);
        ModelAttention model = modelAttention(in); // exact.npy's numbers
        r.probs = std::move(model.probs);
        r.out = std::move(model.out);
        return r;
    }
    // ALiBi runs on the model's float32 kernel like the exact head; the fitted scores below have no such kernel (q W
    // k^T from a float64 fit, tanh features) and stay float64. Neither case needs the head's own [T, T] scores.
    switch (spec.kind) {
    case MechanismKind::Unscaled:
        if (in.q.cols() != in.k.cols())
            throw Error("variant 'unscaled' needs queries and keys of one width; this head's are "
                + std::to_string(in.q.cols()) + " and " + std::to_string(in.k.cols()));
        r.notes["scores"] = in.bias.size() ? "q k^T + the model's position bias, without the score scale"
                                           : "q k^T without the 1/sqrt(d_k) scale";
        // float64: without the scale the scores are sqrt(d_k) times larger, and float32 ones put the weights 1.1e-6
        // from the float64 softmax on stories260K, past the NumPy reference's 1e-6.
        r.probs = maskedSoftmax(dotScores(in, in.q, in.k, 1.0), modelKeepMask(in));
        r.out = r.probs * in.v;
        return r;
    case MechanismKind::Alibi: {
        const int64_t head = std::max<int64_t>(in.head, 0);
        Mat bias = alibiMatrix(in.tokens(), in.numHeads, head);
        r.numbers["alibi_slope"] = alibiSlopes(in.numHeads)[static_cast<size_t>(head)];
        r.notes["scores"] = "q k^T * scale + slope * (j - i), ALiBi (Press et al.) added to the head's own q, k "
                            "(bias.npy), the slope of this head among the layer's heads";
        // ALiBi takes the place of a T5 head's own position bias: both say how far the key is.
        ModelAttention a = kernelAttention(in, in.scale, bias);
        r.arrays.push_back({ "bias", std::move(bias), {} });
        r.probs = std::move(a.probs);
        r.out = std::move(a.out);
        return r;
    }
    default:
        break;
    }
    const KeepMask keep = modelKeepMask(in);
    const Mat own = exactScores(in);
    const std::string target
        = learned ? "the model's own " + learnedScoreName(in.learned.kind) + " scores" : "the model's scaled scores";
    Mat scores;
    switch (spec.kind) {
    case MechanismKind::General: {
        r.notes["scores"] = "Luong general q W k^T";
        if (!useLearned(in, LearnedScoreKind::General, r)) {
            r.arrays.push_back({ "params", fitGeneral(in, own), {} });
            r.notes["params"] = "fitted: W [dq, dk] = pinv(q) S pinv(k)^T, the minimum-norm least-squares fit to "
                + target + " S over every entry";
        }
        scores = in.q * r.arrays.back().values * in.k.transpose();
        break;
    }
    case MechanismKind::Concat:
    case MechanismKind::Additive: {
        // The two are one function family (W_a [q; k] = W_q q + W_k k); they differ here only in their seed.
        const bool concat = spec.kind == MechanismKind::Concat;
        r.notes["scores"] = concat ? "Luong concat v^T tanh(W_a [q; k]) with W_a = [W_q | W_k]"
                                   : "Bahdanau additive v^T tanh(W_q q + W_k k)";
        if (!useLearned(in, concat ? LearnedScoreKind::Concat : LearnedScoreKind::Additive, r)) {
            r.arrays.push_back({ "params", fitTanhScores(in, own, keep, concat ? 1 : 2), {} });
            r.notes["params"]
                = std::string("params [h, h + 1] = W_q | W_k | v with h = dq + dk: W_q, W_k seeded random "
                              "(RandomStream(")
                + (concat ? "1" : "2")
                + "), entries N(0, 1 / (h rms^2)) with rms the root mean square of q and k; v fitted by least "
                  "squares to "
                + target + " over the visible entries";
        }
        scores = tanhScores(r.arrays.back().values, in.q, in.k);
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
