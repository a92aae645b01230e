// SPDX-License-Identifier: MIT
#pragma once
// linear() in blocks with a cancel check between them. On the CPU the longest stretches of a forward without a check
// were single products: one LM head over 256 positions (256 x 768 x 50,257) or one MLP product of a 1,024-token line
// ran for 300 to 500 ms on a loaded machine, past the 200 ms a cancel may take (issue 20).
#include "core/tensor.h"

#include <cstdint>
#include <functional>

namespace attn {

/// Multiply-adds per block by default: a few milliseconds of this machine's two cores, tens of milliseconds with a
/// fraction of one, and large enough that a block runs at the whole product's speed.
constexpr int64_t kCancelBlockMultiplyAdds = int64_t(1) << 27;

/// linear(x, w, bias) with `cancelRequested` asked between blocks; true throws Cancelled. A product of more than
/// `blockMultiplyAdds` (at least 2^22) is split into blocks of x's rows or of w's rows (the result's columns),
/// whichever side is longer: the other operand, which OpenBLAS copies into its panels once per call, is the short one.
/// Every block stays on the whole product's path, OpenBLAS's sgemm (at least 192 rows and 2^21 multiply-adds, above
/// gemm()'s Eigen cutoff of 2^18 and OpenBLAS's small-matrix kernels, 100^3), and starts at a multiple of 192 rows,
/// a multiple of every OpenBLAS register tile (1 to 64 rows). So each element comes from the same kind of kernel as in
/// linear():
/// with OpenBLAS's AVX-512 and Sandy Bridge kernels bit for bit; its Haswell / Zen and SSE kernels sum some elements
/// in another order when the product starts elsewhere, so those differ within a float32 dot product's rounding
/// (tests/engine/test_cancellable_linear.cpp). Products of one row of x (OpenBLAS's gemv), quantized packed weights
/// (their own blocked kernel) and smaller ones run whole, without a check.
Tensor cancellableLinear(const Tensor& x, const Tensor& w, const Tensor* bias,
    const std::function<bool()>& cancelRequested, int64_t blockMultiplyAdds = kCancelBlockMultiplyAdds);

} // namespace attn
