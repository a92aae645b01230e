// SPDX-License-Identifier: MIT
#pragma once
// The engine's matrix products: OpenBLAS for large ones, Eigen for small ones.
#include <cstdint>
#include <string>

namespace attn {

/// C = alpha * A * op(B) for row-major, contiguous float matrices: A [m, k]; B [n, k] when bTransposed, else [k, n];
/// C [m, n] (overwritten). Large products run on OpenBLAS (every core, the widest kernels the CPU has); small ones,
/// such as the decode steps of small models, on Eigen, where a library call would cost more than the arithmetic.
void gemm(int64_t m, int64_t n, int64_t k, float alpha, const float* a, const float* b, bool bTransposed, float* c);

/// The OpenBLAS core the large products use ("SkylakeX", "Haswell", ...). The first call makes sure it fits this
/// CPU (see blas.cpp); it happens before main, while no other thread can use BLAS.
const std::string& blasKernels();

} // namespace attn
