// SPDX-License-Identifier: MIT
#include "mechanisms/approximation_sweep.h"

#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/linear_attention.h"
#include "mechanisms/linformer_draws.h"

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

/// What does not change between the sweep's draws: the measured rows' queries (scaled for Performer's phi), mask,
/// bias and reference output, and the keys scaled for phi.
struct SweepRows {
    Mat q, rootQ, rootK, bias;
    KeepMask keep;
    Mat referenceOut;
    double referenceNorm = 0;
};

SweepRows sweepRows(const HeadInputs& in, const std::vector<int64_t>& rows, bool unmasked)
{
    SweepRows r;
    r.q = in.q(rows, Eigen::all);
    const double root = std::sqrt(in.scale); // x = q * sqrt(scale), as runPerformer
    r.rootQ = r.q * root;
    r.rootK = in.k * root;
    if (in.bias.size()) r.bias = in.bias(rows, Eigen::all);
    ScoreRows exact = exactScoreRows(in, rows);
    r.keep = unmasked ? KeepMask::Ones(r.q.rows(), in.keyCount()) : std::move(exact.keep);
    r.referenceOut = maskedSoftmax(exact.scores, r.keep) * in.v;
    r.referenceNorm = r.referenceOut.norm();
    return r;
}

double relativeError(const Mat& out, const SweepRows& r)
{
    const double diff = (out - r.referenceOut).norm();
    return r.referenceNorm > 0.0 ? diff / r.referenceNorm : diff; // as compareAttention
}

} // namespace

ApproximationSweep approximationSweep(const HeadInputs& in, const std::string& family,
    const std::vector<int64_t>& sizes, int seeds, int64_t rowLimit, const std::function<void()>& checkpoint,
    LinformerDraws* draws)
{
    const bool linformer = family == "linformer";
    if (!linformer && family != "performer") throw Error("approximationSweep: unknown family '" + family + "'");
    if (!in.isSelfAttention()) throw Error("the " + family + " sweep runs on a self-attention head");
    const std::vector<int64_t> rows = sweepQueryRows(in.tokens(), rowLimit);
    // Linformer mixes every position and is measured against the unmasked head (as analyzeMechanism does).
    const SweepRows r = sweepRows(in, rows, linformer);
    ApproximationSweep sweep { {}, static_cast<int64_t>(rows.size()), in.tokens() };
    for (int64_t size : sizes) {
        if (size < 1 || size > 4096)
            throw Error("the " + family + " sweep's size " + std::to_string(size) + " is outside [1, 4096]");
        double sum = 0.0, sumSq = 0.0;
        for (int s = 0; s < seeds; ++s) {
            if (checkpoint) checkpoint();
            const auto seed = static_cast<uint64_t>(s);
            Mat out;
            if (linformer) {
                const auto [e, f] = draws ? draws->projections(size, in.tokens(), seed)
                                          : linformerProjections(size, in.tokens(), seed);
                out = linformerProbs(r.q, e * in.k, in.scale) * (f * in.v);
            } else {
                const Mat w = performerFeatures(size, in.dim(), seed);
                out = performerProbs(performerPhi(r.rootQ, w), performerPhi(r.rootK, w), r.bias, r.keep) * in.v;
            }
            const double e = relativeError(out, r);
            sum += e;
            sumSq += e * e;
        }
        const double mean = sum / seeds;
        sweep.points.push_back({ size, mean, std::sqrt(std::max(0.0, sumSq / seeds - mean * mean)) });
    }
    return sweep;
}

} // namespace attn
