// SPDX-License-Identifier: MIT
#include "mechanisms/mechanism_report.h"

#include "mechanisms/attention_math.h"

#include <cmath>
#include <limits>
#include <utility>

namespace attn {

MechanismMetrics compareAttention(const Mat& reference, const Mat& referenceOut, const MechanismResult& variant)
{
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    MechanismMetrics m;
    const double refNorm = referenceOut.norm();
    m.outRelErr = refNorm > 0.0 ? (variant.out - referenceOut).norm() / refNorm : (variant.out - referenceOut).norm();
    m.entropyMean = meanRowEntropy(variant.probs);
    m.exactEntropyMean = meanRowEntropy(reference);
    m.maxWeightMean = meanRowMax(variant.probs);
    if (!variant.probsOverKeys) {
        m.klMean = m.massKept = nan;
        return m;
    }
    // Down the columns with one running value per row (attention_math.cpp: the same sums to the bit, cache-friendly).
    const Eigen::Index T = reference.rows();
    const Eigen::VectorXd weight = rowSums(variant.probs);
    Eigen::VectorXd rowKl = Eigen::VectorXd::Zero(T), rowKept = Eigen::VectorXd::Zero(T);
    for (Eigen::Index j = 0; j < reference.cols(); ++j)
        for (Eigen::Index i = 0; i < T; ++i) {
            const double p = variant.probs(i, j);
            if (p <= 0.0) continue;
            rowKl(i) += p * (std::log(p) - std::log(reference(i, j)));
            rowKept(i) += reference(i, j);
        }
    double kl = 0.0, kept = 0.0;
    int64_t rows = 0;
    for (Eigen::Index i = 0; i < T; ++i) {
        if (weight(i) <= 0.0) continue;
        kl += rowKl(i);
        kept += rowKept(i);
        ++rows;
    }
    m.klMean = rows ? kl / static_cast<double>(rows) : 0.0;
    m.massKept = rows ? kept / static_cast<double>(rows) : 0.0;
    return m;
}

namespace {

/// Whether the variant puts weight on a key whose weight in `exact` rounded to zero.
bool referenceUnderflows(const Mat& exact, const MechanismResult& variant)
{
    if (!variant.probsOverKeys) return false;
    return ((variant.probs.array() > 0.0) && (exact.array() == 0.0)).any();
}

} // namespace

MechanismReport analyzeMechanism(const HeadInputs& inputs, const MechanismSpec& spec)
{
    MechanismReport r;
    // The model's own float32 attention (what the Exact map shows and exact.npy holds, equal to `attention`'s); the
    // metrics below sum logs and products of it in float64, where T float32 terms of a row would lose digits.
    ModelAttention model = modelAttention(inputs);
    r.exact = std::move(model.probs);
    r.exactOut = std::move(model.out);
    r.variant = runMechanism(inputs, spec);
    if (r.variant.unmaskedReference) {
        r.reference = maskedSoftmax(exactScores(inputs), fullKeepMask(inputs.tokens()));
        r.referenceOut = r.reference * inputs.v;
    } else if (referenceUnderflows(r.exact, r.variant)) {
        // A score gap beyond float32's exp range (~104) makes the float32 weight 0 where the variant keeps weight:
        // KL against it would read infinity, so this head's metrics take the float64 probabilities instead.
        r.reference = exactProbabilities(inputs);
        r.referenceOut = r.reference * inputs.v;
    } else {
        r.reference = r.exact;
        r.referenceOut = r.exactOut;
    }
    r.metrics = compareAttention(r.reference, r.referenceOut, r.variant);
    return r;
}

} // namespace attn
