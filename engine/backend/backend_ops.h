// SPDX-License-Identifier: MIT
#pragma once
// The ops model code calls for projections and RoPE: on the forward's backend when it has one that runs the op,
// else the CPU building blocks. The CPU backend implements both with those same blocks, so a CPU run is
// bit-identical whether or not a backend is given.
#include "backend/backend.h"

namespace attn {

/// x W^T (+ bias), as linear(): x [n, in], w [out, in], bias null or [out] -> [n, out].
Tensor linearOn(Backend* backend, const Tensor& x, const Tensor& w, const Tensor* bias = nullptr);
/// applyRope() on x [heads, t, d] in place.
void ropeOn(Backend* backend, Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims);

} // namespace attn
