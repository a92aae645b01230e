// SPDX-License-Identifier: MIT
// rope:THETA, the RoPE what-if: the head's q and k with the model's own rotation undone (its float32 cos/sin table,
// exactly inverted in double), then rotated again with base THETA (0: no rotary at all). A head without RoPE (GPT-2,
// encoders, synthetic input) is rotated as it is, rotate-half over every dimension.
#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/mechanism.h"

#include <cmath>

namespace attn {

namespace {

struct PairLayout {
    int64_t half = 0, stride = 1, partner = 0; ///< pair i is (i * stride, i * stride + partner), i < half
};

PairLayout pairLayout(RopeStyle style, int64_t rotaryDims)
{
    const int64_t half = rotaryDims / 2;
    return style == RopeStyle::Interleaved ? PairLayout { half, 2, 1 } : PairLayout { half, 1, half };
}

/// Rotates (or with `inverse` un-rotates) every row p of x by the angles cos[p, i], sin[p, i] of its pairs.
void rotate(Mat& x, const PairLayout& pairs, const Mat& cos, const Mat& sin, bool inverse)
{
    for (Eigen::Index p = 0; p < x.rows(); ++p)
        for (int64_t i = 0; i < pairs.half; ++i) {
            double& a = x(p, i * pairs.stride);
            double& b = x(p, i * pairs.stride + pairs.partner);
            const double c = cos(p, i), s = inverse ? -sin(p, i) : sin(p, i), norm = inverse ? c * c + s * s : 1.0;
            const double a0 = a, b0 = b;
            a = (a0 * c - b0 * s) / norm;
            b = (b0 * c + a0 * s) / norm;
        }
}

/// The model's table, as applyRope computes it: float32 angle position * inv_freq, float32 cos and sin times the
/// factor.
void modelTable(const RotaryEmbedding& rope, int64_t tokens, Mat& cos, Mat& sin)
{
    const auto half = static_cast<Eigen::Index>(rope.invFreq.size());
    cos.resize(tokens, half);
    sin.resize(tokens, half);
    for (Eigen::Index p = 0; p < tokens; ++p)
        for (Eigen::Index i = 0; i < half; ++i) {
            const float angle = static_cast<float>(p) * rope.invFreq[static_cast<size_t>(i)];
            cos(p, i) = static_cast<float>(std::cos(static_cast<double>(angle))) * rope.cosSinScale;
            sin(p, i) = static_cast<float>(std::sin(static_cast<double>(angle))) * rope.cosSinScale;
        }
}

} // namespace

MechanismResult runRopeWhatIf(const HeadInputs& in, const MechanismSpec& spec)
{
    const int64_t T = in.tokens(), theta = spec.numbers[0];
    const bool modelRope = in.rotary.style != RopeStyle::None;
    const int64_t rotaryDims = modelRope ? in.rotary.rotaryDims : in.dim() - in.dim() % 2;
    const PairLayout pairs = pairLayout(modelRope ? in.rotary.style : RopeStyle::RotateHalf, rotaryDims);
    if (theta == 1) throw Error("variant '" + spec.text + "': THETA must be 0 (no rotary) or at least 2");
    Mat q = in.q, k = in.k;
    MechanismResult r;
    if (modelRope) {
        Mat cos, sin;
        modelTable(in.rotary, T, cos, sin);
        rotate(q, pairs, cos, sin, true);
        rotate(k, pairs, cos, sin, true);
        Mat invFreq(1, pairs.half);
        for (int64_t i = 0; i < pairs.half; ++i)
            invFreq(0, i) = in.rotary.invFreq[static_cast<size_t>(i)];
        r.arrays.push_back({ "inv_freq", invFreq, {} });
        r.numbers["cos_sin_scale"] = in.rotary.cosSinScale;
    }
    r.arrays.push_back({ "q_unrotated", q, {} });
    r.arrays.push_back({ "k_unrotated", k, {} });
    if (theta > 0) {
        Mat cos(T, pairs.half), sin(T, pairs.half);
        for (int64_t p = 0; p < T; ++p)
            for (int64_t i = 0; i < pairs.half; ++i) {
                const double angle = static_cast<double>(p)
                    * std::pow(
                        static_cast<double>(theta), -2.0 * static_cast<double>(i) / static_cast<double>(rotaryDims));
                cos(p, i) = std::cos(angle);
                sin(p, i) = std::sin(angle);
            }
        rotate(q, pairs, cos, sin, false);
        rotate(k, pairs, cos, sin, false);
    }
    r.numbers["rotary_dims"] = static_cast<double>(rotaryDims);
    r.numbers["rope_interleaved"] = pairs.stride == 2 ? 1.0 : 0.0;
    r.notes["rope"] = std::string(modelRope ? "the model's rotation undone (q_unrotated.npy, k_unrotated.npy; its "
                                              "float32 table from inv_freq.npy inverted exactly), then "
                                            : "the head has no RoPE: its q, k ")
        + (theta > 0 ? "rotated with base THETA (inv_freq_i = THETA^(-2i / rotary_dims), angles in double)"
                     : "scored without any rotation")
        + (pairs.stride == 2 ? ", pairs (2i, 2i + 1)" : ", pairs (i, i + rotary_dims / 2)");
    r.probs = maskedSoftmax(dotScores(in, q, k, in.scale), modelKeepMask(in));
    r.out = r.probs * in.v;
    return r;
}

} // namespace attn
