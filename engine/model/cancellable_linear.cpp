// SPDX-License-Identifier: MIT
#include "model/cancellable_linear.h"

#include "core/blas.h"
#include "core/error.h"
#include "model/layers.h"
#include "quant/packed_matrix.h"

#include <Eigen/Core>

#include <algorithm>

namespace attn {
namespace {

// Block boundaries fall on multiples of this many rows: 192 = 64 x 3 is a multiple of every register tile height and
// width of OpenBLAS's x86-64 sgemm kernels (1, 2, 4, 6, 8, 16, 24, 32, 48, 64).
constexpr int64_t kBlockAlign = 192;
// Smaller blocks could leave OpenBLAS's sgemm path (see the header).
constexpr int64_t kMinBlockMultiplyAdds = int64_t(1) << 22;

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

} // namespace

Tensor cancellableLinear(const Tensor& x, const Tensor& w, const Tensor* bias,
    const std::function<bool()>& cancelRequested, int64_t blockMultiplyAdds)
{
    const float* weights = w.packed() ? w.packed()->denseF32() : w.data();
    const bool fits = x.rank() == 2 && w.rank() == 2 && x.dim(1) == w.dim(1) && (!bias || bias->numel() == w.dim(0));
    // Products that run whole, and misfits, for which linear() gives its message.
    if (!fits || !weights || !cancelRequested || x.dim(0) < 2) return linear(x, w, bias);
    const int64_t n = x.dim(0), in = x.dim(1), out = w.dim(0);
    const int64_t blockWork = std::max(blockMultiplyAdds, kMinBlockMultiplyAdds);
    const bool byRowsOfX = n >= out;
    const int64_t length = byRowsOfX ? n : out, across = (byRowsOfX ? out : n) * in;
    const int64_t blockRows
        = std::max(kBlockAlign, blockWork / std::max<int64_t>(across, 1) / kBlockAlign * kBlockAlign);
    const int64_t blocks = length / blockRows; // the last block also takes the remainder: no small block at the end
    if (blocks < 2) return linear(x, w, bias);

    Tensor y({ n, out });
    for (int64_t b = 0; b < blocks; ++b) {
        if (b > 0 && cancelRequested()) throw Cancelled();
        const int64_t r0 = b * blockRows, rows = b + 1 < blocks ? blockRows : length - r0;
        if (byRowsOfX)
            gemmStrided(rows, out, in, 1.0f, x.data() + r0 * in, in, weights, in, true, y.data() + r0 * out, out);
        else
            gemmStrided(n, rows, in, 1.0f, x.data(), in, weights + r0 * in, in, true, y.data() + r0, out);
    }
    if (bias)
        Eigen::Map<RowMatrix>(y.data(), n, out).rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias->data(), out);
    return y;
}

} // namespace attn
