// SPDX-License-Identifier: MIT
#pragma once
#include <cstdint>

namespace attn {

/// x[i] = x[i] / (1 + exp(-x[i])) for i < n, eight lanes at a time with AVX2 and FMA (exp8, the softmax's exp, then a
/// correctly rounded division): within 4 float ulps of the exact SiLU where the result is a normal float, and within
/// 1e-36 absolutely below x = -87 (the exp saturates there; the exact value is under 1e-35). The same instructions run
/// on AVX2-only and AVX-512 CPUs, so both round alike. Returns false, touching nothing, on a CPU without AVX2 and FMA.
bool siluAvx2(float* x, int64_t n);

} // namespace attn
