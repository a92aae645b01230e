// SPDX-License-Identifier: MIT
#pragma once
// Products with packed weights (quant/packed_matrix.h): the weight is widened to float32 a block of rows at a time,
// inside the product, so that it is never resident as float32.
#include "core/tensor.h"

namespace attn {

/// linear() with a packed weight: x [n, in], w [out, in] packed, bias null or [out] -> [n, out]. A decode step's few
/// rows of x take each weight row's dot products as it is widened (rowDots() in registers for Q8_0, Q4_K, BF16 and
/// F16; the other types a row at a time through L1), rows spread over the cores; a prefill widens a chunk of rows
/// exactly as ggml does and multiplies it in float32 as gemm() multiplies dense weights. The result does not depend
/// on the number of cores.
Tensor packedLinear(const Tensor& x, const PackedMatrix& w, const Tensor* bias);

/// Rows `ids` of a packed table [V, d] -> [n, d] float32 (embedding look-ups).
Tensor packedRows(const PackedMatrix& table, const std::vector<int64_t>& ids);

} // namespace attn
