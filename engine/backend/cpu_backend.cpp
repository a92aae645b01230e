// SPDX-License-Identifier: MIT
#include "backend/cpu_backend.h"

#include "attention/rope.h"
#include "model/layers.h"

#include <algorithm>
#include <thread>

namespace attn {

namespace {

/// Rows [q0, q1) of the mask tensor for one query head, as a [rows, k] tensor (or null when absent).
const Tensor* sliceMaskRows(const Tensor* t, int64_t head, int64_t q0, int64_t q1, Tensor& storage)
{
    if (!t)
        return nullptr;
    const int64_t nq = t->dim(-2), nk = t->dim(-1);
    const int64_t h = t->rank() == 3 && t->dim(0) > 1 ? head : 0;
    const float* src = t->data() + (h * nq + q0) * nk;
    storage = Tensor({ q1 - q0, nk }, std::vector<float>(src, src + (q1 - q0) * nk));
    return &storage;
}

} // namespace

DeviceInfo CpuBackend::device() const
{
    DeviceInfo info;
    info.backend = "cpu";
    info.name = "CPU (" + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " threads)";
    info.type = "cpu";
    return info;
}

AttentionResult CpuBackend::attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options)
{
    return multiHeadAttention(q, k, v, options);
}

Tensor CpuBackend::attentionProbabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options)
{
    return attn::attentionProbabilities(q, k, options);
}

Tensor CpuBackend::probabilityTile(const Tensor& q, const Tensor& k, const TileRange& r, const AttentionOptions& options)
{
    checkTileRange(q, k, r);
    checkAttentionInputs(q.shape(), k.shape(), nullptr, options);
    const int64_t d = q.dim(2), nk = k.dim(1), rows = r.q1 - r.q0;
    const int64_t kvHead = r.head / (q.dim(0) / k.dim(0));
    // One head, rows q0..q1: the same call as the full matrix, with the rows shifted by q0 positions.
    const float* qSrc = q.data() + (r.head * q.dim(1) + r.q0) * d;
    const Tensor qRows({ 1, rows, d }, std::vector<float>(qSrc, qSrc + rows * d));
    const float* kSrc = k.data() + kvHead * nk * d;
    const Tensor kHead({ 1, nk, d }, std::vector<float>(kSrc, kSrc + nk * d));
    AttentionOptions rowOptions = options;
    rowOptions.mask.queryOffset += r.q0;
    Tensor keepRows, biasRows;
    rowOptions.mask.keepMask = sliceMaskRows(options.mask.keepMask, r.head, r.q0, r.q1, keepRows);
    rowOptions.mask.bias = sliceMaskRows(options.mask.bias, r.head, r.q0, r.q1, biasRows);
    const Tensor probs = attn::attentionProbabilities(qRows, kHead, rowOptions);
    Tensor tile({ rows, r.k1 - r.k0 });
    for (int64_t i = 0; i < rows; ++i)
        std::copy_n(probs.data() + i * nk + r.k0, r.k1 - r.k0, tile.data() + i * (r.k1 - r.k0));
    return tile;
}

void CpuBackend::rope(Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims)
{
    applyRope(x, positionOffset, style, theta, rotaryDims);
}

Tensor CpuBackend::matmul(const Tensor& x, const Tensor& w, const Tensor* bias)
{
    checkMatmulInputs(x.shape(), w, bias);
    // linear() itself, so that models routed through this backend stay bit-identical to the plain CPU path.
    const Tensor* b = bias && !bias->empty() ? bias : nullptr;
    if (x.rank() == 2)
        return linear(x, w, b);
    Shape yShape = x.shape();
    yShape.back() = w.dim(0);
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < x.rank(); ++i)
        rows *= x.dim(i);
    return linear(x.reshaped({ rows, w.dim(1) }), w, b).reshaped(std::move(yShape));
}

} // namespace attn
