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

/// Whether the head's mask lets each row see a prefix of the keys (causal) or all of them, with no bias: then
/// Performer's outputs follow from running sums over the keys (performerOutputs).
bool prefixMask(const HeadInputs& in)
{
    return in.slidingWindow <= 0 && in.bias.size() == 0;
}

/// Performer's output on the sweep's rows for each feature count m of `sizes`, from the first m columns of one draw's
/// phi(q) [R, M] and phi(k) [T, M] (the first m rows of performerFeatures(M) are performerFeatures(m); phi's 1/sqrt(m)
/// cancels in the normalisation). By the linear-attention identity out_i = phi(q_i) S_i / phi(q_i) . z_i, where S_i =
/// sum of phi(k_j) v_j^T and z_i = sum of phi(k_j) over the keys row i sees, accumulated over the keys in order as
/// the (ascending) rows go: T x M x d multiply-adds for every size at once, where the implied [R, T] kernel took
/// R x T x m for each (at 4,096 tokens most of the Linear attention page's CPU). Needs prefixMask.
std::vector<Mat> performerOutputs(const HeadInputs& in, const std::vector<int64_t>& rows, const Mat& phiQ,
    const Mat& phiK, const std::vector<int64_t>& sizes)
{
    const int64_t T = in.keyCount(), M = phiK.cols(), R = phiQ.rows();
    std::vector<Mat> out(sizes.size(), Mat::Zero(R, in.v.cols()));
    Mat sums = Mat::Zero(M, in.v.cols());
    Eigen::VectorXd weights = Eigen::VectorXd::Zero(M);
    int64_t added = 0;
    for (int64_t r = 0; r < R; ++r) {
        const int64_t seen = in.causal ? rows[static_cast<size_t>(r)] + 1 : T;
        if (seen > added) {
            sums += phiK.middleRows(added, seen - added).transpose() * in.v.middleRows(added, seen - added);
            weights += phiK.middleRows(added, seen - added).colwise().sum().transpose();
            added = seen;
        }
        for (size_t s = 0; s < sizes.size(); ++s) {
            const int64_t m = sizes[s];
            const double total = phiQ.row(r).head(m).dot(weights.head(m));
            if (total > 0.0) out[s].row(r) = phiQ.row(r).head(m) * sums.topRows(m) / total;
        }
    }
    return out;
}

} // namespace

ApproximationSweep approximationSweep(const HeadInputs& in, const std::string& family,
    const std::vector<int64_t>& sizes, int seeds, int64_t rowLimit, const std::function<void()>& checkpoint,
    LinformerDraws* draws)
{
    const bool linformer = family == "linformer";
    if (!linformer && family != "performer") throw Error("approximationSweep: unknown family '" + family + "'");
    if (!in.isSelfAttention()) throw Error("the " + family + " sweep runs on a self-attention head");
    for (int64_t size : sizes)
        if (size < 1 || size > 4096)
            throw Error("the " + family + " sweep's size " + std::to_string(size) + " is outside [1, 4096]");
    const std::vector<int64_t> rows = sweepQueryRows(in.tokens(), rowLimit);
    // Linformer mixes every position and is measured against the unmasked head (as analyzeMechanism does).
    const SweepRows r = sweepRows(in, rows, linformer);
    ApproximationSweep sweep { {}, static_cast<int64_t>(rows.size()), in.tokens() };
    if (sizes.empty()) return sweep;
    // Seed by seed, every size from one draw: a smaller size's projection or features are the first rows of the
    // largest's (linformerNormals, performerFeatures). Each size's errors still add up in seed order.
    std::vector<double> sum(sizes.size(), 0.0), sumSq(sizes.size(), 0.0);
    const int64_t largest = *std::max_element(sizes.begin(), sizes.end());
    LinformerDraws unkept(0);
    for (int s = 0; s < seeds; ++s) {
        if (checkpoint) checkpoint();
        const auto seed = static_cast<uint64_t>(s);
        std::vector<Mat> outs(sizes.size());
        if (linformer) {
            const std::vector<LinformerProducts> p
                = (draws ? *draws : unkept).products(sizes, in.k, in.v, seed, checkpoint);
            for (size_t i = 0; i < sizes.size(); ++i)
                outs[i] = linformerProbs(r.q, p[i].ek, in.scale) * p[i].fv;
        } else {
            const Mat w = performerFeatures(largest, in.dim(), seed);
            const Mat phiQ = performerPhi(r.rootQ, w), phiK = performerPhi(r.rootK, w);
            if (prefixMask(in)) {
                outs = performerOutputs(in, rows, phiQ, phiK, sizes);
            } else {
                for (size_t i = 0; i < sizes.size(); ++i) {
                    if (checkpoint) checkpoint();
                    const int64_t m = sizes[i];
                    outs[i] = performerProbs(phiQ.leftCols(m), phiK.leftCols(m), r.bias, r.keep) * in.v;
                }
            }
        }
        for (size_t i = 0; i < sizes.size(); ++i) {
            const double e = relativeError(outs[i], r);
            sum[i] += e;
            sumSq[i] += e * e;
        }
    }
    for (size_t i = 0; i < sizes.size(); ++i) {
        const double mean = sum[i] / seeds;
        sweep.points.push_back({ sizes[i], mean, std::sqrt(std::max(0.0, sumSq[i] / seeds - mean * mean)) });
    }
    return sweep;
}

} // namespace attn
