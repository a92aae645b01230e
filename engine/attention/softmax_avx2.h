// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>

namespace attn {

/// Softmax of row[0, n) in place, eight lanes at a time with AVX2 and FMA, for rows without masked (-inf) entries
/// (a causal or sliding window's visible keys). Returns false, touching nothing, on a CPU without AVX2 and FMA: the
/// caller's portable softmax runs then. The same instructions run on AVX2-only and AVX-512 CPUs, so both round alike.
bool softmaxDenseAvx2(float* row, int64_t n);

} // namespace attn
