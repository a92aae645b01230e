// SPDX-License-Identifier: MIT
#include "backend/backend_ops.h"

#include "attention/rope.h"
#include "model/layers.h"

namespace attn {

Tensor linearOn(Backend* backend, const Tensor& x, const Tensor& w, const Tensor* bias)
{
    if (backend && backend->supportsOp(Op::Matmul))
        return backend->matmul(x, w, bias);
    return linear(x, w, bias);
}

void ropeOn(Backend* backend, Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims)
{
    if (backend && backend->supportsOp(Op::Rope))
        backend->rope(x, positionOffset, style, theta, rotaryDims);
    else
        applyRope(x, positionOffset, style, theta, rotaryDims);
}

} // namespace attn
