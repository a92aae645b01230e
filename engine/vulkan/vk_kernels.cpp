// SPDX-License-Identifier: MIT
#include "vulkan/vk_kernels.h"

#include "core/error.h"
#include "shaders/spirv.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace attn::vk {

namespace {

constexpr uint32_t kAttentionThreads = 64; // attn_*.comp workgroup size (specialization constant 0)
constexpr int64_t kMaxHeadDim = 256; // MAX_HEAD_DIM in attn_common.glsl
constexpr int64_t kMaxValueDim = 4 * kAttentionThreads; // OUT_PER_THREAD * WG in attn_output.comp
constexpr uint32_t kThreads = 256; // rope, norm, activation, elementwise, heads
// attn_output splits the keys when fewer (row, head) workgroups than this would run, in ranges of at least
// kMinKeysPerSplit keys and into at most kMaxSplits of them.
constexpr int64_t kBusyWorkgroups = 256;
constexpr int64_t kMinKeysPerSplit = 256;
constexpr int64_t kMaxSplits = 32;
constexpr uint32_t kMatmulBlock = 64; // rows and columns of y per matmul.comp workgroup
constexpr int64_t kMatvecFeatures = 4; // FEATURES in matvec.comp: output features per workgroup
constexpr int64_t kMatvecMaxRows = 8; // MAX_ROWS in matvec.comp

struct CombineParams {
    uint32_t hq, nq, dv, splits;
};
struct RopeParams {
    uint32_t heads, t, d, rotary, interleaved;
};
struct MatmulParams {
    uint32_t m, n, k, hasBias, yStride, colOffset;
};
struct NormParams {
    uint32_t rows, d;
    float eps;
    uint32_t layerNorm;
};
struct ActivationParams {
    uint32_t n, kind;
};
struct ElementwiseParams {
    uint32_t n, op;
    float factor;
    uint32_t block;
};
struct HeadsParams {
    uint32_t n, heads, dim, cols, offset, merge;
};

constexpr uint32_t kBlockRows = 8; // query rows per attention workgroup (ROWS) when there are that many
const KernelSource kProbsKernel { "attn_probs", spirv::attn_probs_spv, spirv::attn_probs_spv_size, 7,
    sizeof(AttentionParams), { kAttentionThreads, 1 } };
const KernelSource kProbsBlockKernel { "attn_probs", spirv::attn_probs_spv, spirv::attn_probs_spv_size, 7,
    sizeof(AttentionParams), { kAttentionThreads, kBlockRows } };
const KernelSource kOutputKernel { "attn_output", spirv::attn_output_spv, spirv::attn_output_spv_size, 7,
    sizeof(AttentionParams), { kAttentionThreads, 1 } };
const KernelSource kOutputBlockKernel { "attn_output", spirv::attn_output_spv, spirv::attn_output_spv_size, 7,
    sizeof(AttentionParams), { kAttentionThreads, kBlockRows } };
const KernelSource kCombineKernel { "attn_combine", spirv::attn_combine_spv, spirv::attn_combine_spv_size, 2,
    sizeof(CombineParams), { kAttentionThreads } };
const KernelSource kRopeKernel { "rope", spirv::rope_spv, spirv::rope_spv_size, 3, sizeof(RopeParams), { kThreads } };
const KernelSource kMatmulKernel { "matmul", spirv::matmul_spv, spirv::matmul_spv_size, 4, sizeof(MatmulParams), {} };
const KernelSource kMatvecKernel { "matvec", spirv::matvec_spv, spirv::matvec_spv_size, 4, sizeof(MatmulParams), {} };
const KernelSource kNormKernel { "norm", spirv::norm_spv, spirv::norm_spv_size, 4, sizeof(NormParams), { kThreads } };
const KernelSource kActivationKernel { "activation", spirv::activation_spv, spirv::activation_spv_size, 1,
    sizeof(ActivationParams), { kThreads } };
const KernelSource kElementwiseKernel { "elementwise", spirv::elementwise_spv, spirv::elementwise_spv_size, 2,
    sizeof(ElementwiseParams), { kThreads } };
const KernelSource kHeadsKernel { "heads", spirv::heads_spv, spirv::heads_spv_size, 2, sizeof(HeadsParams),
    { kThreads } };

size_t bytesOf(const Tensor& t) { return static_cast<size_t>(t.numel()) * sizeof(float); }

uint32_t headStride(const Tensor& t, int64_t nq, int64_t nk)
{
    return t.rank() == 3 && t.dim(0) != 1 ? fits32(nq * nk, "mask size") : 0;
}

} // namespace

uint32_t fits32(int64_t value, const char* what)
{
    if (value < 0 || value > std::numeric_limits<int32_t>::max())
        throw DeviceFailure(std::string(what) + " " + std::to_string(value) + " is too large for the Vulkan kernels");
    return static_cast<uint32_t>(value);
}

uint32_t Recorder::strideGroups(int64_t items, uint32_t threads) const
{
    const int64_t groups = (items + threads - 1) / threads;
    return static_cast<uint32_t>(
        std::clamp<int64_t>(groups, 1, m_context.limits().maxComputeWorkGroupCount[0]));
}

AttentionParams Recorder::attentionParams(int64_t hq, int64_t nq, int64_t d, int64_t hkv, int64_t nk, int64_t dv,
    int64_t kvRows, const AttentionOptions& o)
{
    if (d > kMaxHeadDim || dv > kMaxValueDim)
        throw DeviceFailure("head dim " + std::to_string(std::max(d, dv)) + " is beyond the Vulkan attention kernels ("
            + std::to_string(kMaxHeadDim) + ")");
    fits32(hq * nq * nk, "probability count");
    fits32(std::max(hq * nq, hkv * kvRows) * std::max(d, dv), "operand size");
    AttentionParams p {};
    p.hq = fits32(hq, "heads");
    p.hkv = fits32(hkv, "kv heads");
    p.nq = fits32(nq, "queries");
    p.nk = fits32(nk, "keys");
    p.d = fits32(d, "head dim");
    p.dv = fits32(dv, "value dim");
    p.scale = o.scale != 0.0f ? o.scale : 1.0f / std::sqrt(static_cast<float>(d)); // as the CPU core
    p.causal = o.mask.causal;
    p.queryOffset = static_cast<int32_t>(fits32(o.mask.queryOffset + nq, "query position")) - static_cast<int32_t>(nq);
    p.window = static_cast<int32_t>(fits32(o.mask.slidingWindow, "sliding window"));
    p.softcap = o.softcap;
    p.col1 = p.nk;
    p.row1 = p.nq;
    p.kvRows = fits32(kvRows, "kv rows");
    return p;
}

AttentionOperands Recorder::attentionOperands(
    const Tensor& q, const Tensor& k, const Tensor* v, const AttentionOptions& o)
{
    AttentionOperands a;
    a.q = m_job.upload(q.data(), bytesOf(q));
    a.k = m_job.upload(k.data(), bytesOf(k));
    a.v = v ? m_job.upload(v->data(), bytesOf(*v)) : placeholder();
    attachMasks(a, q.shape(), k.shape(), v ? v->dim(2) : 0, o);
    return a;
}

void Recorder::attachMasks(AttentionOperands& a, const Shape& q, const Shape& k, int64_t dv, const AttentionOptions& o)
{
    a.params = attentionParams(q[0], q[1], q[2], k[0], k[1], dv, k[1], o);
    if (!o.mask.keyKeep.empty()) {
        const std::vector<uint32_t> keep(o.mask.keyKeep.begin(), o.mask.keyKeep.end());
        a.keyKeep = m_job.upload(keep.data(), keep.size() * sizeof(uint32_t));
        a.params.hasKeyKeep = 1;
    } else {
        a.keyKeep = placeholder();
    }
    if (o.mask.keepMask) {
        a.keep = m_job.upload(o.mask.keepMask->data(), bytesOf(*o.mask.keepMask));
        a.params.hasKeep = 1;
        a.params.keepHeadStride = headStride(*o.mask.keepMask, q[1], k[1]);
    } else {
        a.keep = placeholder();
    }
    if (o.mask.bias) {
        a.bias = m_job.upload(o.mask.bias->data(), bytesOf(*o.mask.bias));
        a.params.hasBias = 1;
        a.params.biasHeadStride = headStride(*o.mask.bias, q[1], k[1]);
    } else {
        a.bias = placeholder();
    }
}

void Recorder::attentionOutput(const AttentionOperands& a, const BufferRef& out)
{
    const int64_t pairs = int64_t(a.params.nq) * a.params.hq, nk = a.params.nk;
    const int64_t splits = std::clamp<int64_t>(
        std::min((kBusyWorkgroups + pairs - 1) / pairs, nk / kMinKeysPerSplit), 1, kMaxSplits);
    if (splits == 1) { // blocks of query rows share every key and value row they read
        const bool block = a.params.nq >= kBlockRows;
        const uint32_t rows = block ? kBlockRows : 1;
        m_job.dispatch(m_context.kernel(block ? kOutputBlockKernel : kOutputKernel),
            { a.q, a.k, a.v, out, a.keyKeep, a.keep, a.bias }, &a.params, (a.params.nq + rows - 1) / rows, a.params.hq);
        return;
    }
    // Ranges of whole key tiles; the last split may be shorter.
    const int64_t perSplit = ((nk + splits - 1) / splits + kAttentionThreads - 1) / kAttentionThreads * kAttentionThreads;
    const int64_t used = (nk + perSplit - 1) / perSplit;
    AttentionParams params = a.params;
    params.keysPerSplit = static_cast<uint32_t>(perSplit);
    const BufferRef partial = m_job.scratch(static_cast<size_t>(pairs * used * (params.dv + 2)) * sizeof(float));
    m_job.dispatch(m_context.kernel(kOutputKernel), { a.q, a.k, a.v, partial, a.keyKeep, a.keep, a.bias }, &params,
        params.nq, params.hq, static_cast<uint32_t>(used));
    const CombineParams combine { params.hq, params.nq, params.dv, static_cast<uint32_t>(used) };
    m_job.dispatch(m_context.kernel(kCombineKernel), { partial, out }, &combine, params.nq, params.hq);
}

void Recorder::attentionProbs(const AttentionOperands& a, const BufferRef& out, int64_t heads)
{
    const uint32_t rows = a.params.row1 - a.params.row0, block = rows >= kBlockRows ? kBlockRows : 1;
    m_job.dispatch(m_context.kernel(block > 1 ? kProbsBlockKernel : kProbsKernel),
        { a.q, a.k, a.v, out, a.keyKeep, a.keep, a.bias }, &a.params, (rows + block - 1) / block,
        fits32(heads, "heads"));
}

void Recorder::matmul(const BufferRef& x, const BufferRef& w, const BufferRef* bias, int64_t rows, int64_t in,
    int64_t out, const BufferRef& y, int64_t yStride, int64_t colOffset)
{
    if (yStride == 0)
        yStride = out;
    fits32(std::max({ rows * in, out * in, rows * yStride }), "matrix size");
    const MatmulParams params { fits32(rows, "rows"), fits32(out, "output features"), fits32(in, "input features"),
        bias ? 1u : 0u, fits32(yStride, "output row stride"), fits32(colOffset, "output column offset") };
    const std::vector<BufferRef> buffers { x, w, bias ? *bias : placeholder(), y };
    if (rows <= kMatvecMaxRows) { // decode steps: bound by reading W once
        const int64_t groups = (out + kMatvecFeatures - 1) / kMatvecFeatures;
        const int64_t perRow = m_context.limits().maxComputeWorkGroupCount[0];
        m_job.dispatch(m_context.kernel(kMatvecKernel), buffers, &params, fits32(std::min(groups, perRow), "features"),
            fits32((groups + perRow - 1) / perRow, "feature rows"));
        return;
    }
    m_job.dispatch(m_context.kernel(kMatmulKernel), buffers, &params,
        fits32((out + kMatmulBlock - 1) / kMatmulBlock, "column blocks"),
        fits32((rows + kMatmulBlock - 1) / kMatmulBlock, "row blocks"));
}

Recorder::RopeTables Recorder::ropeTables(int64_t t, int64_t positionOffset, const RotaryEmbedding& rope)
{
    const int64_t rotaryDims = rope.rotaryDims, half = rotaryDims / 2;
    if (rope.style == RopeStyle::None || half == 0 || t == 0)
        return {};
    // The angle tables come from the CPU core itself: rotating a unit vector (1, 0) per pair yields exactly
    // (cos, sin) as the CPU computes them, so both backends use bit-identical angles.
    const bool inter = rope.style == RopeStyle::Interleaved;
    Tensor probe({ 1, t, rotaryDims });
    for (int64_t r = 0; r < t; ++r)
        for (int64_t i = 0; i < half; ++i)
            probe.data()[r * rotaryDims + (inter ? 2 * i : i)] = 1.0f;
    applyRope(probe, positionOffset, rope);
    std::vector<float> cosTable(static_cast<size_t>(t * half)), sinTable(cosTable.size());
    for (int64_t r = 0; r < t; ++r)
        for (int64_t i = 0; i < half; ++i) {
            const float* row = probe.data() + r * rotaryDims;
            cosTable[r * half + i] = row[inter ? 2 * i : i];
            sinTable[r * half + i] = row[inter ? 2 * i + 1 : i + half];
        }
    return { m_job.upload(cosTable.data(), cosTable.size() * sizeof(float)),
        m_job.upload(sinTable.data(), sinTable.size() * sizeof(float)) };
}

void Recorder::rope(const BufferRef& x, int64_t heads, int64_t t, int64_t d, RopeStyle style, int64_t rotaryDims,
    const RopeTables& tables)
{
    const int64_t half = rotaryDims / 2;
    if (!tables.cos || heads * t == 0)
        return;
    fits32(heads * t * d, "tensor size");
    const RopeParams params { fits32(heads, "heads"), fits32(t, "tokens"), fits32(d, "head dim"),
        fits32(rotaryDims, "rotary dims"), style == RopeStyle::Interleaved ? 1u : 0u };
    m_job.dispatch(m_context.kernel(kRopeKernel), { x, tables.cos, tables.sin }, &params,
        strideGroups(heads * t * half, kThreads));
}

void Recorder::norm(const BufferRef& x, const BufferRef& weight, const BufferRef* bias, int64_t rows, int64_t d,
    double eps, const BufferRef& y)
{
    fits32(rows * d, "tensor size");
    const NormParams params { fits32(rows, "rows"), fits32(d, "features"), static_cast<float>(eps), bias ? 1u : 0u };
    m_job.dispatch(m_context.kernel(kNormKernel), { x, weight, bias ? *bias : placeholder(), y }, &params,
        strideGroups(rows, 1));
}

void Recorder::activation(const BufferRef& x, int64_t n, Activation activation)
{
    const ActivationParams params { fits32(n, "tensor size"), static_cast<uint32_t>(activation) };
    m_job.dispatch(m_context.kernel(kActivationKernel), { x }, &params, strideGroups(n, kThreads));
}

void Recorder::elementwise(const BufferRef& x, const BufferRef& y, int64_t n, bool multiply)
{
    const ElementwiseParams params { fits32(n, "tensor size"), multiply ? 1u : 0u, 1.0f, 1u };
    m_job.dispatch(m_context.kernel(kElementwiseKernel), { x, y }, &params, strideGroups(n, kThreads));
}

void Recorder::scale(const BufferRef& x, int64_t n, float factor)
{
    const ElementwiseParams params { fits32(n, "tensor size"), 2u, factor, 1u };
    m_job.dispatch(m_context.kernel(kElementwiseKernel), { x, x }, &params, strideGroups(n, kThreads));
}

void Recorder::clamp(const BufferRef& x, int64_t n, float limit)
{
    const ElementwiseParams params { fits32(n, "tensor size"), 3u, limit, 1u };
    m_job.dispatch(m_context.kernel(kElementwiseKernel), { x, x }, &params, strideGroups(n, kThreads));
}

void Recorder::scaleBlocks(const BufferRef& x, const BufferRef& factors, int64_t blocks, int64_t block)
{
    const int64_t n = blocks * block;
    if (n == 0)
        return;
    const ElementwiseParams params { fits32(n, "tensor size"), 4u, 1.0f, fits32(block, "block size") };
    m_job.dispatch(m_context.kernel(kElementwiseKernel), { x, factors }, &params, strideGroups(n, kThreads));
}

void Recorder::heads(const BufferRef& src, const BufferRef& dst, int64_t n, int64_t heads, int64_t dim, int64_t cols,
    int64_t offset, bool merge)
{
    fits32(std::max(n * cols, heads * n * dim), "tensor size");
    const HeadsParams params { fits32(n, "rows"), fits32(heads, "heads"), fits32(dim, "head dim"),
        fits32(cols, "columns"), fits32(offset, "column offset"), merge ? 1u : 0u };
    m_job.dispatch(m_context.kernel(kHeadsKernel), { src, dst }, &params, strideGroups(heads * n * dim, kThreads));
}

} // namespace attn::vk
