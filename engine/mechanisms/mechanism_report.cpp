// SPDX-License-Identifier: MIT
#include "mechanisms/mechanism_report.h"

#include "mechanisms/attention_math.h"

#include <cmath>
#include <limits>

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
    double kl = 0.0, kept = 0.0;
    int64_t rows = 0;
    for (Eigen::Index i = 0; i < reference.rows(); ++i) {
        if (variant.probs.row(i).sum() <= 0.0) continue;
        double rowKl = 0.0, rowKept = 0.0;
        for (Eigen::Index j = 0; j < reference.cols(); ++j) {
            const double p = variant.probs(i, j);
            if (p <= 0.0) continue;
            rowKl += p * (std::log(p) - std::log(reference(i, j)));
            rowKept += reference(i, j);
        }
        kl += rowKl;
        kept += rowKept;
        ++rows;
    }
    m.klMean = rows ? kl / static_cast<double>(rows) : 0.0;
    m.massKept = rows ? kept / static_cast<double>(rows) : 0.0;
    return m;
}

MechanismReport analyzeMechanism(const HeadInputs& inputs, const MechanismSpec& spec)
{
    MechanismReport r;
    r.exact = exactProbabilities(inputs);
    r.exactOut = r.exact * inputs.v;
    r.variant = runMechanism(inputs, spec);
    if (r.variant.unmaskedReference) {
        r.reference = maskedSoftmax(exactScores(inputs), fullKeepMask(inputs.tokens()));
        r.referenceOut = r.reference * inputs.v;
    } else {
        r.reference = r.exact;
        r.referenceOut = r.exactOut;
    }
    r.metrics = compareAttention(r.reference, r.referenceOut, r.variant);
    return r;
}

} // namespace attn
