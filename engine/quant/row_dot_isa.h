// SPDX-License-Identifier: MIT
#pragma once
// What row_dot.cpp dispatches to: the fused dot kernels of one instruction set (row_dot_avx2.cpp,
// row_dot_avx512.cpp), each a set of instantiations of row_dot_kernels.h.
#include "quant/ggml_type.h"

#include <cstdint>

namespace attn::row_dot {

/// The activations as the blocks read them.
struct Activations {
    const float* x; ///< [n, cols]
    int64_t cols;
    const float* groupSums; ///< Q4_K: [n, cols / 32]
};

/// out[j * outStride] = the dot product of the packed row with activation row j, j < the kernel's row count.
using DotsFunction = void (*)(const uint8_t* row, const Activations& in, float* out, int64_t outStride);

/// The kernel for `type` (Q8_0, Q4_K, BF16 or F16) and n activation rows (1 .. kRowDotsMaxRows), eight lanes per
/// register (AVX2, FMA, F16C); the caller checks that the CPU has them.
DotsFunction avx2Dots(GgmlType type, int64_t n);

/// The same sums sixteen lanes per register (AVX-512F); the same bits as avx2Dots.
DotsFunction avx512Dots(GgmlType type, int64_t n);

} // namespace attn::row_dot
