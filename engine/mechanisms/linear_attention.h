// SPDX-License-Identifier: MIT
#pragma once
// Linear attention: Linformer's low-rank projections of K and V and Performer's FAVOR+ random features.
#include "mechanisms/head_inputs.h"

namespace attn {

/// A Linformer projection [k, T] with N(0, 1/k) entries (the Johnson-Lindenstrauss scale of Wang et al. 2020).
Mat linformerProjection(int64_t k, int64_t tokens, uint64_t seed);

/// The N(0, 1) draws behind linformerProjection(k, tokens, seed) for every k <= rows: [rows, tokens], the stream's
/// normals row by row. A projection of size k is its first k rows times 1/sqrt(k) rounded to float32
/// (linformerProjectionOf), so one draw at the largest size holds every smaller size's.
Mat linformerNormals(int64_t rows, int64_t tokens, uint64_t seed);
Mat linformerProjectionOf(const Mat& normals, int64_t k);

/// E and F of linformer:K:SEED (independent sub-seeds of SEED).
struct LinformerProjections {
    Mat e, f; ///< [k, T] each
};
LinformerProjections linformerProjections(int64_t k, int64_t tokens, uint64_t seed);

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
