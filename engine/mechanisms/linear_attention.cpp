// SPDX-License-Identifier: MIT
#include "mechanisms/linear_attention.h"

#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/mechanism.h"
#include "mechanisms/random_stream.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

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

/// linformerProduct's tile: rows z[0 .. kRows - 1] times the columns c0 .. c0 + kCols - 1 of x, for t in [t0, t1),
/// added to acc (kRows rows of `stride` values). Inlined into both targets below: AVX2 (four doubles a lane group) and
/// the baseline (two), the same products and sums per entry in the same order, so the same bits on either.
constexpr int64_t kRows = 4, kCols = 8;

[[gnu::always_inline]] inline void productTile(
    const float* const* z, const double* x, int64_t stride, int64_t t0, int64_t t1, int64_t c0, double* acc)
{
    double a[kRows][kCols];
    for (int64_t r = 0; r < kRows; ++r)
        for (int64_t c = 0; c < kCols; ++c)
            a[r][c] = acc[r * stride + c0 + c];
    for (int64_t t = t0; t < t1; ++t) {
        const double* xt = x + t * stride + c0;
        for (int64_t r = 0; r < kRows; ++r) {
            const double zr = z[r][t];
            for (int64_t c = 0; c < kCols; ++c)
                a[r][c] += zr * xt[c];
        }
    }
    for (int64_t r = 0; r < kRows; ++r)
        for (int64_t c = 0; c < kCols; ++c)
            acc[r * stride + c0 + c] = a[r][c];
}

/// One block of kRows rows over the keys t0 .. t1 - 1, every column tile.
void productBlock(const float* const* z, const double* x, int64_t stride, int64_t t0, int64_t t1, double* acc)
{
    for (int64_t c0 = 0; c0 < stride; c0 += kCols)
        productTile(z, x, stride, t0, t1, c0, acc);
}

__attribute__((target("avx2"))) void productBlockAvx2(
    const float* const* z, const double* x, int64_t stride, int64_t t0, int64_t t1, double* acc)
{
    for (int64_t c0 = 0; c0 < stride; c0 += kCols)
        productTile(z, x, stride, t0, t1, c0, acc);
}

MechanismResult runLinformer(const HeadInputs& in, const MechanismSpec& spec)
{
    const int64_t k = spec.numbers[0], T = in.tokens();
    if (k < 1 || k > 4096) throw Error("variant '" + spec.text + "': the projection size K must lie in [1, 4096]");
    const uint64_t seed = static_cast<uint64_t>(spec.numbers[1]);
    const LinformerNormals ze = linformerNormals(k, T, subSeed(seed, 1)), zf = linformerNormals(k, T, subSeed(seed, 2));
    MechanismResult r;
    r.probs = linformerProbs(in.q, linformerProjected(linformerProduct(ze, in.k), k), in.scale);
    r.out = r.probs * linformerProjected(linformerProduct(zf, in.v), k);
    r.probsOverKeys = false;
    r.unmaskedReference = true;
    const double root = std::sqrt(static_cast<double>(k));
    r.arrays.push_back({ "E", ze.cast<double>() / root, {} });
    r.arrays.push_back({ "F", zf.cast<double>() / root, {} });
    r.notes["formula"] = "probs = softmax(q (E k)^T * scale) [T, K], out = probs (F v); E, F [K, T] N(0, 1/K): "
                         "float32 N(0, 1) draws divided by sqrt(K) (E.npy, F.npy: rounded to float32)";
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

void drawLinformerNormals(float* out, int64_t first, int64_t rows, int64_t tokens, uint64_t seed)
{
    RandomStream rng(seed);
    rng.skip(static_cast<uint64_t>(2 * first * tokens)); // normal() takes two numbers
    for (int64_t i = 0; i < rows * tokens; ++i)
        out[i] = static_cast<float>(rng.normal());
}

LinformerNormals linformerNormals(int64_t rows, int64_t tokens, uint64_t seed)
{
    LinformerNormals z(rows, tokens);
    drawLinformerNormals(z.data(), 0, rows, tokens, seed);
    return z;
}

Mat linformerProduct(const LinformerNormals& z, const Mat& x)
{
    // Keys in blocks of 256 (a block of x stays in cache across the row blocks); each entry's running sum is kept in
    // `acc` between them, so its terms are still added in key order.
    constexpr int64_t kKeyBlock = 256;
    const int64_t rows = z.rows(), T = z.cols(), d = x.cols();
    if (x.rows() != T)
        throw Error("linformerProduct: draws over " + std::to_string(T) + " tokens, x has " + std::to_string(x.rows())
            + " rows");
    const int64_t stride = (d + kCols - 1) / kCols * kCols, blocks = (rows + kRows - 1) / kRows, full = rows / kRows;
    std::vector<double> xr(static_cast<size_t>(T * stride), 0.0); // x row-major, zero-padded to whole tiles
    for (int64_t c = 0; c < d; ++c)
        for (int64_t t = 0; t < T; ++t)
            xr[static_cast<size_t>(t * stride + c)] = x(t, c);
    std::vector<float> tail(static_cast<size_t>(kRows * T), 0.0f); // the last rows, padded with zero rows
    for (int64_t i = full * kRows; i < rows; ++i)
        std::copy_n(z.data() + i * T, T, tail.data() + (i - full * kRows) * T);
    std::vector<double> acc(static_cast<size_t>(blocks * kRows * stride), 0.0);
    static const bool avx2 = __builtin_cpu_supports("avx2");
    for (int64_t t0 = 0; t0 < T; t0 += kKeyBlock)
        for (int64_t b = 0; b < blocks; ++b) {
            const float* base = b < full ? z.data() + b * kRows * T : tail.data();
            const float* zr[kRows];
            for (int64_t r = 0; r < kRows; ++r)
                zr[r] = base + r * T;
            double* out = acc.data() + b * kRows * stride;
            const int64_t t1 = std::min(T, t0 + kKeyBlock);
            (avx2 ? productBlockAvx2 : productBlock)(zr, xr.data(), stride, t0, t1, out);
        }
    Mat out(rows, d);
    for (int64_t c = 0; c < d; ++c)
        for (int64_t i = 0; i < rows; ++i)
            out(i, c) = acc[static_cast<size_t>(i * stride + c)];
    return out;
}

Mat linformerProjected(const Mat& product, int64_t k)
{
    return product.topRows(k) * (1.0 / std::sqrt(static_cast<double>(k)));
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
