// SPDX-License-Identifier: MIT
#pragma once
// A decode step's product with a quantized (or half) weight row: the row's blocks are widened in registers and
// multiply-added into the dot products there, so each weight byte is read once and no float32 copy of the row is
// written and read back. Each block's scale multiplies the block's (Q4_K: each group's) sum of quant x activation
// products once, not every weight, and Q4_K's group minimums multiply the activations' group sums: one multiply
// (Q4_K: a multiply and a subtraction) fewer per 8 weights. Q8_0: the same weights (q * d is exact in float32) summed
// in another order; Q4_K: scale * q - min as the exact difference, which dequantizeRow rounds to float32. The order of
// the sums is fixed over 16 lanes (row_dot_kernels.h), so AVX2 and AVX-512 give the same bits.
#include "quant/ggml_type.h"
#include "quant/row_dot_isa.h"

#include <cstdint>
#include <vector>

namespace attn {

/// The most activation rows rowDots() takes at once.
constexpr int64_t kRowDotsMaxRows = 4;

/// Whether rowDots() runs for `type` on this CPU: Q8_0, Q4_K, BF16 and F16 where the CPU has AVX2, FMA and F16C (every
/// AVX2 CPU has F16C). CPUs with AVX-512F run the sums 16 lanes per register, the others 8; the results are the same
/// bits on each.
bool hasRowDots(GgmlType type);

/// The instruction set rowDots() runs on: the widest this CPU has, or one chosen (tests compare them).
enum class RowDotIsa { Widest, Avx2, Avx512 };

/// Whether this CPU runs rowDots() on `isa` (Widest: hasRowDots of some type). With the environment variable
/// ATTNSCOPE_MAX_ISA=avx2 at the first call, this process acts as a CPU without AVX-512: Avx512 is false and Widest
/// runs the AVX2 kernels, so that the whole engine (tests, CLI) can be run on the AVX2 path on an AVX-512 machine.
bool hasRowDotIsa(RowDotIsa isa);

/// The environment variable read once by hasRowDotIsa() and RowDotInput.
constexpr const char* kMaxIsaVariable = "ATTNSCOPE_MAX_ISA";

/// The cap a value of kMaxIsaVariable sets: null or empty Widest (none), "avx2" Avx2, "avx512" Avx512 (none on
/// today's kernels); throws Error for anything else, so that a misspelt value does not silently test the wide path.
RowDotIsa rowDotIsaCap(const char* value);

/// A decode step's activation rows x [n, cols] (n in 1 .. kRowDotsMaxRows) prepared once for every weight row of
/// `type` they meet: for Q4_K also each row's sums over its 32-element groups, and the kernel. Throws Error where
/// hasRowDots(type) or hasRowDotIsa(isa) is false or n is out of range. x must outlive it.
class RowDotInput {
public:
    RowDotInput(GgmlType type, const float* x, int64_t cols, int64_t n, RowDotIsa isa = RowDotIsa::Widest);

    GgmlType type() const { return m_type; }
    const float* x() const { return m_x; }
    int64_t cols() const { return m_cols; }
    int64_t rows() const { return m_n; }
    /// Q4_K: sum of x[j, 32 g .. 32 g + 31] at [j * cols / 32 + g], summed in double and rounded once; else empty.
    const float* groupSums() const { return m_groupSums.data(); }
    /// The kernel for this type, row count and instruction set.
    row_dot::DotsFunction kernel() const { return m_kernel; }

private:
    GgmlType m_type;
    const float* m_x;
    int64_t m_cols, m_n;
    std::vector<float> m_groupSums;
    row_dot::DotsFunction m_kernel;
};

/// out[j * outStride] = sum over i < cols of w[i] * x[j * cols + i], for j < x.rows(), where w is the packed row at
/// `row` (of x.type()) as dequantizeRow() widens it. Float32, 16 partial sums per activation row added pairwise at the
/// end (BF16, F16: then the last cols % 16 products one by one; the order: row_dot_kernels.h): within
/// (cols / 16 + 20) * 2^-24 * sum |w[i] x[j, i]| of the exact dot product; for Q4_K with |w[i]| + 2 |min(i)| in place
/// of |w[i]|, min(i) being the minimum of i's group (it multiplies the group's sum of x, which cancels where the
/// weights are near zero).
void rowDots(const RowDotInput& x, const uint8_t* row, float* out, int64_t outStride);

} // namespace attn
