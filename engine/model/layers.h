// SPDX-License-Identifier: MIT
#pragma once
// CPU building blocks the model families share (Eigen inside, no Eigen in this header).
#include "core/tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

enum class Activation { Relu, Gelu, GeluTanh, Silu };

/// HF activation names: relu, gelu, gelu_new / gelu_pytorch_tanh / gelu_fast (tanh form), silu / swish.
/// Throws Error naming `source` for anything else.
Activation parseActivation(const std::string& name, const std::string& source);
void applyActivation(Tensor& x, Activation activation);

/// x W^T (+ bias): x [n, in], w [out, in] (HF Linear layout), bias [out] or null -> [n, out].
Tensor linear(const Tensor& x, const Tensor& w, const Tensor* bias = nullptr);
/// [rows, cols] -> [cols, rows] (GPT-2 Conv1D weights are stored [in, out]).
Tensor transposed(const Tensor& m);

/// LayerNorm over the last axis of [n, d], in place (biased variance, as torch).
void layerNormInPlace(Tensor& x, const Tensor& weight, const Tensor& bias, double eps);
/// RMSNorm of [n, d] into a new tensor: weight * x / sqrt(mean(x^2) + eps).
Tensor rmsNorm(const Tensor& x, const Tensor& weight, double eps);

void addInPlace(Tensor& x, const Tensor& y);
/// x clamped to [-limit, limit] elementwise (olmo's clip_qkv, torch.clamp).
void clampInPlace(Tensor& x, float limit);
/// a *= b elementwise (SwiGLU's gate times up).
void multiplyInPlace(Tensor& a, const Tensor& b);

/// Rows of `table` [V, d] for `ids` -> [n, d]; an id outside [0, V) throws Error naming `what`.
Tensor gatherRows(const Tensor& table, const std::vector<int64_t>& ids, const std::string& what);

/// Columns [offset, offset + heads * dim) of x [n, C] as head-major [heads, n, dim].
Tensor splitHeads(const Tensor& x, int64_t heads, int64_t dim, int64_t offset = 0);
/// [heads, n, dim] -> [n, heads * dim].
Tensor mergeHeads(const Tensor& x);

} // namespace attn
