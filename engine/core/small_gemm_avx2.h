// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>

namespace attn {

/// gemmStrided()'s product for a few rows of A (a decode step's projections, and its scores and weighted values per
/// key/value head), eight lanes with AVX2 and FMA, without the packing Eigen's general product does first (for a
/// 64-wide model that packing cost more than the arithmetic). Returns false, touching nothing, for more than
/// kSmallGemmMaxRows rows or on a CPU without AVX2 and FMA: the caller's portable product runs then. AVX2-only and
/// AVX-512 CPUs run the same instructions, so both round alike.
bool smallGemmAvx2(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
    int64_t ldb, bool bTransposed, float* c, int64_t ldc, bool accumulate);

/// Up to this many rows of A: one decode step's fused query rows of a key/value head (8 query heads per kv head).
constexpr int64_t kSmallGemmMaxRows = 8;

} // namespace attn
