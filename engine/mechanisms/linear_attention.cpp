// SPDX-License-Identifier: MIT
#include "mechanisms/linear_attention.h"

#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/mechanism.h"
#include "mechanisms/random_stream.h"

#include <cmath>

namespace attn {

namespace {

Mat gaussian(int64_t rows, int64_t cols, double sigma, RandomStream& rng)
{
    Mat m(rows, cols);
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
            m(i, j) = sigma * rng.normal();
    return m;
}

/// Rows of `block` made orthonormal in order (modified Gram-Schmidt; N(0, 1) rows are independent almost surely).
void orthonormalizeRows(Mat& block)
{
    for (Eigen::Index r = 0; r < block.rows(); ++r) {
        for (Eigen::Index p = 0; p < r; ++p)
            block.row(r) -= block.row(r).dot(block.row(p)) * block.row(p);
        block.row(r).normalize();
    }
}

MechanismResult runLinformer(const HeadInputs& in, const MechanismSpec& spec)
{
    const int64_t k = spec.numbers[0], T = in.tokens();
    if (k < 1 || k > 4096) throw Error("variant '" + spec.text + "': the projection size K must lie in [1, 4096]");
    const uint64_t seed = static_cast<uint64_t>(spec.numbers[1]);
    const auto [e, f] = linformerProjections(k, T, seed);
    MechanismResult r;
    r.probs = linformerProbs(in.q, e * in.k, in.scale);
    r.out = r.probs * (f * in.v);
    r.probsOverKeys = false;
    r.unmaskedReference = true;
    r.arrays.push_back({ "E", e, {} });
    r.arrays.push_back({ "F", f, {} });
    r.notes["formula"] = "probs = softmax(q (E k)^T * scale) [T, K], out = probs (F v); E, F [K, T] N(0, 1/K)";
    r.notes["reference"] = "Linformer mixes every position, so it is compared with the head's unmasked attention "
                           "softmax(q k^T * scale) (no causal mask), not with exact.npy";
    if (in.bias.size())
        r.notes["bias"] = "the head's T5 position bias is in the reference but has no place in the projected keys";
    return r;
}

MechanismResult runPerformer(const HeadInputs& in, const MechanismSpec& spec)
{
    const int64_t m = spec.numbers[0];
    // phi(q) and phi(k) are [T, M] each: 4096 features keep them within 128 MiB at the longest synthetic input.
    if (m < 1 || m > 4096) throw Error("variant '" + spec.text + "': the feature count M must lie in [1, 4096]");
    const Mat w = performerFeatures(m, in.dim(), static_cast<uint64_t>(spec.numbers[1]));
    // x = q * sqrt(scale) (= q / d^(1/4)), so phi(x_q) . phi(x_k) estimates exp(q . k * scale).
    const double root = std::sqrt(in.scale);
    MechanismResult r;
    r.probs = performerProbs(performerPhi(in.q * root, w), performerPhi(in.k * root, w), in.bias, modelKeepMask(in));
    r.out = r.probs * in.v;
    r.arrays.push_back({ "features", w, {} });
    r.notes["formula"] = "x = q / d^(1/4) or k / d^(1/4); phi(x) = exp(W x - |x|^2 / 2) / sqrt(M), W = features.npy "
                         "[M, d] positive orthogonal random features; probs_ij = phi(q_i).phi(k_j) / sum over the "
                         "keys the mask allows";
    if (in.bias.size()) r.notes["bias"] = "each kernel entry times exp(position_bias_ij), the head's T5 bias";
    return r;
}

} // namespace

Mat linformerNormals(int64_t rows, int64_t tokens, uint64_t seed)
{
    RandomStream rng(seed);
    return gaussian(rows, tokens, 1.0, rng);
}

Mat linformerProjectionOf(const Mat& normals, int64_t k)
{
    return roundedToFloat(normals.topRows(k) * (1.0 / std::sqrt(static_cast<double>(k))));
}

Mat linformerProjection(int64_t k, int64_t tokens, uint64_t seed)
{
    return linformerProjectionOf(linformerNormals(k, tokens, seed), k);
}

LinformerProjections linformerProjections(int64_t k, int64_t tokens, uint64_t seed)
{
    return { linformerProjection(k, tokens, subSeed(seed, 1)), linformerProjection(k, tokens, subSeed(seed, 2)) };
}

Mat linformerProbs(const Mat& q, const Mat& projectedKeys, double scale)
{
    return maskedSoftmax(q * projectedKeys.transpose() * scale, KeepMask::Ones(q.rows(), projectedKeys.rows()));
}

Mat performerFeatures(int64_t m, int64_t dim, uint64_t seed)
{
    RandomStream rng(seed);
    Mat w(m, dim);
    for (int64_t start = 0; start < m; start += dim) {
        Mat block = gaussian(dim, dim, 1.0, rng);
        orthonormalizeRows(block);
        const int64_t rows = std::min(dim, m - start);
        for (int64_t r = 0; r < rows; ++r)
            w.row(start + r) = block.row(r) * gaussian(1, dim, 1.0, rng).norm();
    }
    return roundedToFloat(w);
}

Mat performerPhi(const Mat& x, const Mat& features)
{
    const Eigen::VectorXd halfNorms = 0.5 * x.rowwise().squaredNorm();
    Mat projected = x * features.transpose();
    projected.colwise() -= halfNorms;
    return projected.array().exp() / std::sqrt(static_cast<double>(features.rows()));
}

Mat performerProbs(const Mat& phiQ, const Mat& phiK, const Mat& bias, const KeepMask& keep)
{
    Mat kernel = phiQ * phiK.transpose();
    // A T5 head's position bias b multiplies the kernel by exp(b), as the mask multiplies it by 0 or 1.
    if (bias.size()) kernel.array() *= bias.array().exp();
    Mat probs = Mat::Zero(kernel.rows(), kernel.cols());
    for (Eigen::Index i = 0; i < kernel.rows(); ++i) {
        double sum = 0.0;
        for (Eigen::Index j = 0; j < kernel.cols(); ++j)
            if (keep(i, j)) sum += kernel(i, j);
        for (Eigen::Index j = 0; j < kernel.cols(); ++j)
            if (keep(i, j) && sum > 0.0) probs(i, j) = kernel(i, j) / sum;
    }
    return probs;
}

MechanismResult runLinearAttention(const HeadInputs& in, const MechanismSpec& spec)
{
    if (spec.kind == MechanismKind::Linformer) return runLinformer(in, spec);
    if (spec.kind == MechanismKind::Performer) return runPerformer(in, spec);
    throw Error("variant '" + spec.text + "' is not a linear attention");
}

} // namespace attn
