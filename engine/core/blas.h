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

/// gemm() on sub-matrices: row i of A starts at a + i * lda, row i of B at b + i * ldb, row i of C at c + i * ldc
/// (a block of a wider matrix, e.g. the visible keys of a row block of attention scores). `accumulate`: C += the
/// product instead of C = it; into a C known to be zero that is the same result without OpenBLAS's pass that first
/// zeroes C (beta = 0 still writes every element of C once more).
void gemmStrided(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
    bool bTransposed, float* c, int64_t ldc, bool accumulate = false);

/// The OpenBLAS core the large products use ("SkylakeX", "Haswell", ...). The first call, or the first large
/// product, opens OpenBLAS and makes sure the core fits this CPU (see blas.cpp); Error when it cannot be opened.
const std::string& blasKernels();

} // namespace attn
