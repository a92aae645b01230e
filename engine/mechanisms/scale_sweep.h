// SPDX-License-Identifier: MIT
#pragma once
// Why 1/sqrt(d_k): for unit-variance q and k, q . k has variance d_k, so unscaled softmax rows saturate (entropy
// falls, the largest weight nears 1) as d_k grows, while scaled rows keep the same spread.
#include "mechanisms/sampled_rows.h"

#include <cstdint>
#include <vector>

namespace attn {

struct ScalePoint {
    int64_t dk = 0;
    double entropyScaled = 0, entropyUnscaled = 0; ///< mean row entropy, nats
    double maxScaled = 0, maxUnscaled = 0; ///< mean largest weight per row
};

/// One point per d_k on synthetic inputs (syntheticHeadInputs(tokens, dk, seed)), no mask, measured on the query
/// rows sweepQueryRows(tokens, rowLimit).
std::vector<ScalePoint> scaleSweep(
    int64_t tokens, const std::vector<int64_t>& dks, uint64_t seed, int64_t rowLimit = kSweepRowLimit);

/// The head's own q, k: scaled as the model runs it and unscaled (q k^T + bias), at its d_k, on the rows
/// sweepQueryRows(T, rowLimit).
ScalePoint headScalePoint(const HeadInputs& inputs, int64_t rowLimit = kSweepRowLimit);

struct TemperaturePoint {
    double temperature = 1;
    /// mean row entropy of softmax(scores / temperature) under the head's mask, nats; the scores are the model's
    /// (exactScores: q k^T * scale, or an RNN's learned score)
    double entropy = 0;
    double maxWeight = 0; ///< mean largest weight per row
};

/// Temperatures half an octave apart from 2^-3 to 2^3 (1 = as the model runs it), widened by whole octaves until they
/// take in every one of `within` (the temperatures the d_k slider puts the head at, so its marker stays on the plot).
std::vector<double> temperatureAxis(const std::vector<double>& within);

/// The head's own q, k at each of `temperatures`, on the rows sweepQueryRows(T, rowLimit).
std::vector<TemperaturePoint> temperatureSweep(
    const HeadInputs& inputs, const std::vector<double>& temperatures, int64_t rowLimit = kSweepRowLimit);

/// The head's own q, k scored as if its width were each of `dks`: softmax(q k^T / sqrt(d_k)) under its mask, i.e.
/// temperature scale * sqrt(d_k) (sqrt(d_k / d) for the usual scale; the point at the head's own d is the model's
/// attention). The scale page's d_k slider; on the rows of temperatureSweep.
std::vector<TemperaturePoint> headScaledAs(
    const HeadInputs& inputs, const std::vector<int64_t>& dks, int64_t rowLimit = kSweepRowLimit);

/// 1, 2, 4, ... up to `largest` (the d_k axis of the plot).
std::vector<int64_t> powersOfTwo(int64_t largest);

} // namespace attn
