// SPDX-License-Identifier: MIT
#pragma once
// ggml's block formats to float32, bit for bit as ggml's own to_float (ggml-quants.c dequantize_row_*): the same
// products in the same order, no fused multiply-add (this engine is built without FMA contraction). Every block type
// has an AVX2 row (dequantize_avx2.h) that performs those operations 8 lanes at a time and so gives the same bits.
#include "quant/ggml_type.h"

#include <cstdint>

namespace attn {

/// `count` elements (a multiple of the type's block size) stored at `src` -> dst.
void dequantizeRow(GgmlType type, const uint8_t* src, float* dst, int64_t count);

/// The same without the AVX2 rows: the scalar code that CPUs without AVX2 run, which the AVX2 rows equal bit for bit.
void dequantizeRowPortable(GgmlType type, const uint8_t* src, float* dst, int64_t count);

/// Whether this CPU has F16C and AVX with the OS saving the YMM state (vcvtph2ps widens 8 halves at once).
bool cpuHasF16c();

} // namespace attn
