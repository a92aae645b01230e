// SPDX-License-Identifier: MIT
#pragma once
// Products with packed weights (quant/packed_matrix.h): the weight is widened to float32 a block of rows at a time,
// inside the product, so that it is never resident as float32.
#include "core/tensor.h"

namespace attn {

/// linear() with a packed weight: x [n, in], w [out, in] packed, bias null or [out] -> [n, out]. Each block of
/// weight rows is dequantized exactly as ggml does and multiplied in float32 (Eigen; for a decode step's few rows of
/// Q8_0 / Q4_K, rowDots() in registers), blocks spread over the cores; the result does not depend on the number of
/// cores.
Tensor packedLinear(const Tensor& x, const PackedMatrix& w, const Tensor* bias);

/// Rows `ids` of a packed table [V, d] -> [n, d] float32 (embedding look-ups).
Tensor packedRows(const PackedMatrix& table, const std::vector<int64_t>& ids);

} // namespace attn
