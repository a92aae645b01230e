// SPDX-License-Identifier: MIT
#include "backend/cpu_packed_matmul.h"

#include "backend/cpu_workers.h"
#include "core/blas.h"
#include "quant/packed_matrix.h"
#include "quant/row_dot.h"

#include <Eigen/Core>

#include <algorithm>
#include <memory>
#include <optional>

namespace attn {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A block of weight rows widened at once: 64 KiB of float32 stays in a core's L2 next to the activations while it
// is multiplied, and gives every core several blocks of a decode step's smallest product.
constexpr int64_t kBlockFloats = 16384;
// Decode steps (a few rows of activations) take each weight row's dot products as its blocks are widened in registers
// (Q8_0, Q4_K: quant/row_dot.h), or widen one row at a time into L1 and take them there, instead of a block through L2.
constexpr int64_t kRowByRow = 4;
static_assert(kRowByRow <= kRowDotsMaxRows);
// A prefill widens its weight a chunk of rows at a time (every core widening a part), then multiplies the whole chunk
// in one OpenBLAS product. Before, each core multiplied its 64 KiB block with Eigen: 8 columns of output per pass
// over all the activations (4 MiB at 512 tokens, past L2), and Eigen at this build's baseline SSE2: a 512-token
// prefill of Llama-3.2-1B's shape took 54.6 CPU-seconds, now 12.0 (bench/README.md). A chunk is 192 to 768 rows, a
// whole number of OpenBLAS's register tiles (192, see model/cancellable_linear.cpp), and at most about 6 MiB of
// float32 (at least 192 rows); and at most twice the rows of x (a short prompt gains nothing from a wide chunk), so
// that the buffer, freed after the product, is never large next to the activations or a small model's weights.
constexpr int64_t kChunkFloats = int64_t(3) << 19, kChunkAlign = 192, kChunkMaxRows = 768, kWidenRows = 16;

/// y[:, r0 .. r0 + rows) = x w[r0 .. r0 + rows)^T for a prefill's many rows of x.
void widenedProduct(const Tensor& x, const PackedMatrix& w, Tensor& y)
{
    const int64_t n = x.dim(0), in = w.cols(), out = w.rows();
    const int64_t fit = kChunkFloats / std::max<int64_t>(in, 1) / kChunkAlign * kChunkAlign;
    const int64_t chunk = std::min({ out, std::clamp(fit, kChunkAlign, kChunkMaxRows), std::max(kWidenRows, 2 * n) });
    // Not zero-filled (up to 6 MiB written per product only to be overwritten): each chunk's rows are widened before
    // the product reads them, and it reads no others (QuantPacked.PrefillNeverReadsScratchLeftByAnotherProduct).
    const auto scratch = std::make_unique_for_overwrite<float[]>(static_cast<size_t>(chunk * in));
    float* wide = scratch.get();
    for (int64_t r0 = 0; r0 < out; r0 += chunk) {
        const int64_t rows = std::min(chunk, out - r0);
        parallelFor((rows + kWidenRows - 1) / kWidenRows, [&](int64_t b) {
            const int64_t first = b * kWidenRows;
            w.dequantizeRows(r0 + first, std::min(kWidenRows, rows - first), wide + first * in);
        });
        gemmStrided(n, rows, in, 1.0f, x.data(), in, wide, in, true, y.data() + r0, out);
    }
}

} // namespace

Tensor packedLinear(const Tensor& x, const PackedMatrix& w, const Tensor* bias)
{
    const int64_t n = x.dim(0), in = w.cols(), out = w.rows();
    if (const float* dense = w.denseF32()) { // f32 in the mapping: the same product as a dense weight, no widening
        Tensor y({ n, out });
        gemm(n, out, in, 1.0f, x.data(), dense, true, y.data());
        if (bias)
            Eigen::Map<RowMatrix>(y.data(), n, out).rowwise()
                += Eigen::Map<const Eigen::RowVectorXf>(bias->data(), out);
        return y;
    }
    Tensor y({ n, out });
    if (n > kRowByRow) {
        widenedProduct(x, w, y);
        if (bias)
            Eigen::Map<RowMatrix>(y.data(), n, out).rowwise()
                += Eigen::Map<const Eigen::RowVectorXf>(bias->data(), out);
        return y;
    }
    const int64_t block = std::clamp<int64_t>(kBlockFloats / std::max<int64_t>(in, 1), 1, out);
    const Eigen::Map<const RowMatrix> X(x.data(), n, in);
    std::optional<RowDotInput> fused; // prepared once for every row of the product
    if (hasRowDots(w.type())) fused.emplace(w.type(), x.data(), in, n);
    parallelFor((out + block - 1) / block, [&](int64_t b) {
        const int64_t r0 = b * block, rows = std::min(block, out - r0);
        // Columns [r0, r0 + rows) of y: a strided block of the row-major result.
        Eigen::Map<RowMatrix, 0, Eigen::OuterStride<>> Y(y.data() + r0, n, rows, Eigen::OuterStride<>(out));
        if (fused) {
            for (int64_t r = 0; r < rows; ++r)
                rowDots(*fused, w.row(r0 + r), y.data() + r0 + r, out);
        } else {
            thread_local std::vector<float> scratch;
            scratch.resize(static_cast<size_t>(in));
            const Eigen::Map<const Eigen::RowVectorXf> row(scratch.data(), in);
            for (int64_t r = 0; r < rows; ++r) {
                w.dequantizeRows(r0 + r, 1, scratch.data());
                Y.col(r).noalias() = X * row.transpose();
            }
        }
        if (bias) Y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias->data() + r0, rows);
    });
    return y;
}

Tensor packedRows(const PackedMatrix& table, const std::vector<int64_t>& ids)
{
    const int64_t d = table.cols();
    Tensor out({ static_cast<int64_t>(ids.size()), d });
    for (size_t i = 0; i < ids.size(); ++i)
        table.dequantizeRows(ids[i], 1, out.data() + static_cast<int64_t>(i) * d);
    return out;
}

} // namespace attn
