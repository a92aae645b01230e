// SPDX-License-Identifier: MIT
#pragma once
// AVX2 twins of dequantize.cpp's scalar block rows (the same operations in the same order, 8 lanes at a time), so
// that they give the same bits; dequantizeRow() dispatches to them on CPUs with AVX2.
#include "quant/ggml_type.h"

#include <cstdint>

namespace attn {

using Avx2RowFunction = void (*)(const uint8_t* src, float* dst, int64_t count);

/// The AVX2 row of a ggml block type, or null where there is none or the CPU lacks AVX2.
Avx2RowFunction avx2DequantizeRow(GgmlType type);

} // namespace attn
