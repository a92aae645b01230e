// SPDX-License-Identifier: MIT
#pragma once
// Linear attention: Linformer's low-rank projections of K and V and Performer's FAVOR+ random features.
#include "mechanisms/head_inputs.h"

namespace attn {

/// Linformer's N(0, 1) draws rounded to float32, [rows, T] row-major: RandomStream(seed)'s normals row by row.
using LinformerNormals = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Rows first .. first + rows - 1 of the draws of a stream seed, written to `out` ([rows, tokens] row-major). The
/// stream is a counter, so row r is the same numbers whichever rows are drawn with it (it starts 2 r T numbers in:
/// each normal takes two).
void drawLinformerNormals(float* out, int64_t first, int64_t rows, int64_t tokens, uint64_t seed);
LinformerNormals linformerNormals(int64_t rows, int64_t tokens, uint64_t seed);

/// z x for the draws z [R, T] and keys or values x [T, d]: [R, d]. Each entry adds its T terms z(i, t) x(t, c) in the
/// order t = 0, 1, ... into one running sum (a product, then a sum: no fused multiply-add), and every block of rows
/// runs the same instructions (the last block padded with zero rows), so row i's values are the same bits whatever
/// R is: a product at the largest projection size holds every smaller size's (linformerProjected).
Mat linformerProduct(const LinformerNormals& z, const Mat& x);

/// E x (or F x) of linformer:k:SEED from a product of its draws with at least k rows: the first k rows times
/// 1/sqrt(k). E = Z / sqrt(k) for the first k rows Z of the draws has the paper's N(0, 1/k) entries (Wang et al.
/// 2020, the Johnson-Lindenstrauss scale); E, F of one SEED come from the streams subSeed(SEED, 1) and (SEED, 2).
Mat linformerProjected(const Mat& product, int64_t k);

/// Linformer's attention of query rows `q` [R, d] over the projected keys E k [K, d]: softmax(q (E k)^T * scale), [R,
/// K] (no mask: every projected key mixes every position).
Mat linformerProbs(const Mat& q, const Mat& projectedKeys, double scale);

/// FAVOR+ positive orthogonal random features W [m, d] (Choromanski et al. 2021): blocks of d rows orthonormalised
/// by Gram-Schmidt from N(0, 1) draws, each row then scaled by the norm of an independent N(0, I_d) vector, so every
/// row is marginally N(0, I_d). The last block keeps the first m mod d rows.
Mat performerFeatures(int64_t m, int64_t dim, uint64_t seed);

/// phi(x) = exp(W x - |x|^2 / 2) / sqrt(m) for every row x of `x` [n, d]: [n, m]. E[phi(a) . phi(b)] = exp(a . b).
Mat performerPhi(const Mat& x, const Mat& features);

/// Performer's implied attention of query rows [R, T]: the kernel phi(q) . phi(k) (times exp(bias) where `bias` [R, T]
/// is not empty: a T5 head's position bias), each row normalised over the keys `keep` [R, T] allows.
Mat performerProbs(const Mat& phiQ, const Mat& phiK, const Mat& bias, const KeepMask& keep);

} // namespace attn
