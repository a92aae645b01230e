// SPDX-License-Identifier: MIT
#pragma once
// A decode step's product with a quantized (or half) weight row: the row's blocks are widened in registers, exactly as
// dequantizeRow widens them (the same float32 weights), and multiply-added into the dot products there, so each
// weight byte is read once and no float32 copy of the row is written and read back.
#include "quant/ggml_type.h"

#include <cstdint>

namespace attn {

/// The most activation rows rowDots() takes at once.
constexpr int64_t kRowDotsMaxRows = 4;

/// Whether rowDots() runs for `type` on this CPU: Q8_0, Q4_K, BF16 and F16 where the CPU has AVX2, FMA and F16C (every
/// AVX2 CPU has F16C). Every such CPU, Intel or AMD, AVX-512 or not, runs the same 8-lane instructions, so the results
/// are the same bits on each.
bool hasRowDots(GgmlType type);

/// out[j * outStride] = sum over i < cols of w[i] * x[j * cols + i], for j < n (1 .. kRowDotsMaxRows), where w is
/// the packed row at `row` widened as dequantizeRow() widens it. Float32 with 16 partial sums per activation row
/// (two 8-lane accumulators) added pairwise at the end (BF16, F16: then the last cols % 16 products one by one): within
/// (cols / 16 + 20) * 2^-24 * sum |w[i] x[j, i]| of the exact dot product.
void rowDots(GgmlType type, const uint8_t* row, int64_t cols, const float* x, int64_t n, float* out, int64_t outStride);

} // namespace attn
