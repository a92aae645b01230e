// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>

namespace attn {

/// Softmax of row[0, n) in place, eight lanes at a time with AVX2 and FMA, for rows without masked (-inf) entries
/// (a causal or sliding window's visible keys). Returns false, touching nothing, on a CPU without AVX2 and FMA: the
/// caller's portable softmax runs then. The same instructions run on AVX2-only and AVX-512 CPUs, so both round alike.
bool softmaxDenseAvx2(float* row, int64_t n);

/// The first half of softmaxDenseAvx2: row[j] becomes exp(row[j] - max) and `sum` their sum, so that row[j] / sum,
/// taken as row[j] * (1 / sum), rounds as softmaxDenseAvx2 does (a caller multiplies while writing the row elsewhere).
/// Returns false, touching nothing, on a CPU without AVX2 and FMA.
bool expDenseAvx2(float* row, int64_t n, float& sum);

} // namespace attn
