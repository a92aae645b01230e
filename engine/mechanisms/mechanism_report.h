// SPDX-License-Identifier: MIT
#pragma once
// A mechanism run next to the head's exact attention, with the numbers that say what it keeps and loses.
#include "mechanisms/mechanism.h"

namespace attn {

/// Every value is a mean over query rows with any weight; NaN where it does not apply.
struct MechanismMetrics {
    /// KL(variant row || reference row) in nats: the reference's log-probabilities are finite wherever the variant
    /// puts weight (patterns only remove keys), so it stays finite; for a pattern it is -log(mass kept). NaN for
    /// Linformer, whose columns are not the keys.
    double klMean = 0;
    /// The reference attention mass on the keys the variant gives weight to (1 for dense variants).
    double massKept = 0;
    double outRelErr = 0; ///< |out - reference out|_F / |reference out|_F
    double entropyMean = 0; ///< the variant's row entropy, nats
    double exactEntropyMean = 0; ///< the reference's row entropy, nats
    double maxWeightMean = 0; ///< the variant's largest weight per row
};

struct MechanismReport {
    /// [T, T] the head's probabilities under the model's mask, as the model's float32 kernel computes them
    /// (modelAttention; exact.npy)
    Mat exact;
    Mat exactOut; ///< [T, d] the kernel's output, exact @ v (exact_out.npy)
    /// What the metrics compare with: exact / exactOut, or for an unmasked mechanism the unmasked head.
    Mat reference, referenceOut;
    MechanismResult variant;
    MechanismMetrics metrics;
};

/// Runs `spec` on `inputs` and measures it against the head's exact attention. Throws as runMechanism.
MechanismReport analyzeMechanism(const HeadInputs& inputs, const MechanismSpec& spec);

MechanismMetrics compareAttention(const Mat& reference, const Mat& referenceOut, const MechanismResult& variant);

} // namespace attn
