// SPDX-License-Identifier: MIT
// The Vulkan backend: each op uploads its operands, runs one of the shaders/*.comp kernels and reads the result back.
#include "vulkan/vulkan_backend.h"

#include "attention/rope.h"
#include "core/error.h"
#include "shaders/spirv.h"
#include "vulkan/vk_context.h"
#include "vulkan/vk_job.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attn {

namespace {

using vk::Job;

constexpr uint32_t kAttentionThreads = 64; // attn_*.comp workgroup size (specialization constant 0)
constexpr int64_t kMaxHeadDim = 256; // MAX_HEAD_DIM in attn_common.glsl
constexpr int64_t kMaxValueDim = 4 * kAttentionThreads; // OUT_PER_THREAD * WG in attn_output.comp
constexpr uint32_t kRopeThreads = 256;
constexpr uint32_t kMatmulTile = 16;

/// Mirrors the push-constant block of attn_common.glsl.
struct AttentionParams {
    uint32_t hq, hkv, nq, nk, d, dv;
    float scale;
    uint32_t causal;
    int32_t queryOffset;
    int32_t window;
    uint32_t hasKeyKeep, hasKeep, keepHeadStride, hasBias, biasHeadStride;
    uint32_t head0, row0, col0, col1;
};
static_assert(sizeof(AttentionParams) == 19 * 4);

struct RopeParams {
    uint32_t heads, t, d, rotary, interleaved;
};

struct MatmulParams {
    uint32_t m, n, k, hasBias;
};

const vk::KernelSource kProbsKernel { "attn_probs", spirv::attn_probs_spv, spirv::attn_probs_spv_size, 7,
    sizeof(AttentionParams), { kAttentionThreads } };
const vk::KernelSource kOutputKernel { "attn_output", spirv::attn_output_spv, spirv::attn_output_spv_size, 7,
    sizeof(AttentionParams), { kAttentionThreads } };
const vk::KernelSource kRopeKernel { "rope", spirv::rope_spv, spirv::rope_spv_size, 3, sizeof(RopeParams),
    { kRopeThreads } };
const vk::KernelSource kMatmulKernel { "matmul", spirv::matmul_spv, spirv::matmul_spv_size, 4, sizeof(MatmulParams),
    { kMatmulTile } };

/// The kernels index with 32-bit unsigned integers.
uint32_t fits32(int64_t value, const char* what)
{
    if (value < 0 || value > std::numeric_limits<int32_t>::max())
        throw DeviceFailure(std::string(what) + " " + std::to_string(value) + " is too large for the Vulkan kernels");
    return static_cast<uint32_t>(value);
}

size_t bytesOf(const Tensor& t) { return static_cast<size_t>(t.numel()) * sizeof(float); }

/// The operands every attention kernel binds (0..6) and the parameters they share.
struct AttentionJob {
    Job::Buffer* q = nullptr;
    Job::Buffer* k = nullptr;
    Job::Buffer* v = nullptr;
    Job::Buffer* keyKeep = nullptr;
    Job::Buffer* keep = nullptr;
    Job::Buffer* bias = nullptr;
    AttentionParams params {};

    std::vector<Job::Buffer*> bindings(Job::Buffer* out) const { return { q, k, v, out, keyKeep, keep, bias }; }
};

uint32_t headStride(const Tensor& t, int64_t nq, int64_t nk)
{
    return t.rank() == 3 && t.dim(0) != 1 ? fits32(nq * nk, "mask size") : 0;
}

AttentionJob uploadAttention(Job& job, const Tensor& q, const Tensor& k, const Tensor* v, const AttentionOptions& o)
{
    const int64_t hq = q.dim(0), nq = q.dim(1), d = q.dim(2), hkv = k.dim(0), nk = k.dim(1);
    const int64_t dv = v ? v->dim(2) : 0;
    if (d > kMaxHeadDim || dv > kMaxValueDim)
        throw DeviceFailure("head dim " + std::to_string(std::max(d, dv)) + " is beyond the Vulkan attention kernels ("
            + std::to_string(kMaxHeadDim) + ")");
    fits32(hq * nq * nk, "probability count");
    fits32(std::max(hq * nq, hkv * nk) * std::max(d, dv), "operand size");
    AttentionJob a;
    AttentionParams& p = a.params;
    p.hq = fits32(hq, "heads");
    p.hkv = fits32(hkv, "kv heads");
    p.nq = fits32(nq, "queries");
    p.nk = fits32(nk, "keys");
    p.d = fits32(d, "head dim");
    p.dv = fits32(dv, "value dim");
    p.scale = o.scale != 0.0f ? o.scale : 1.0f / std::sqrt(static_cast<float>(d)); // as the CPU core
    p.causal = o.mask.causal;
    p.queryOffset = static_cast<int32_t>(fits32(o.mask.queryOffset + nq, "query position"))
        - static_cast<int32_t>(nq);
    p.window = static_cast<int32_t>(fits32(o.mask.slidingWindow, "sliding window"));
    a.q = &job.input(q.data(), bytesOf(q));
    a.k = &job.input(k.data(), bytesOf(k));
    a.v = v ? &job.input(v->data(), bytesOf(*v)) : &job.placeholder();
    if (!o.mask.keyKeep.empty()) {
        const std::vector<uint32_t> keep(o.mask.keyKeep.begin(), o.mask.keyKeep.end());
        a.keyKeep = &job.input(keep.data(), keep.size() * sizeof(uint32_t));
        p.hasKeyKeep = 1;
    } else {
        a.keyKeep = &job.placeholder();
    }
    if (o.mask.keepMask) {
        a.keep = &job.input(o.mask.keepMask->data(), bytesOf(*o.mask.keepMask));
        p.hasKeep = 1;
        p.keepHeadStride = headStride(*o.mask.keepMask, nq, nk);
    } else {
        a.keep = &job.placeholder();
    }
    if (o.mask.bias) {
        a.bias = &job.input(o.mask.bias->data(), bytesOf(*o.mask.bias));
        p.hasBias = 1;
        p.biasHeadStride = headStride(*o.mask.bias, nq, nk);
    } else {
        a.bias = &job.placeholder();
    }
    return a;
}

class VulkanBackend final : public Backend {
public:
    std::string name() const override { return "vulkan"; }
    DeviceInfo device() const override { return m_context.info(); }
    bool supportsOp(Op) const override { return true; }

    AttentionResult attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options) override
    {
        checkAttentionInputs(q, k, &v, options);
        const int64_t hq = q.dim(0), nq = q.dim(1), nk = k.dim(1), dv = v.dim(2);
        AttentionResult result;
        result.output = Tensor({ hq, nq, dv });
        if (options.wantProbs)
            result.probs = Tensor({ hq, nq, nk });
        if (result.output.empty() || nk == 0)
            return result; // nothing to attend to: zeros, as the CPU core
        const std::lock_guard lock(m_context.mutex());
        Job job(m_context);
        AttentionJob a = uploadAttention(job, q, k, &v, options);
        Job::Buffer& out = job.output(bytesOf(result.output));
        Job::Buffer* probs = options.wantProbs ? &job.output(bytesOf(result.probs)) : nullptr;
        checkGroups(nq, hq);
        job.dispatch(m_context.kernel(kOutputKernel), a.bindings(&out), &a.params, a.params.nq, a.params.hq);
        if (probs) {
            a.params.col1 = a.params.nk;
            job.dispatch(m_context.kernel(kProbsKernel), a.bindings(probs), &a.params, a.params.nq, a.params.hq);
        }
        job.run();
        job.read(out, result.output.data(), bytesOf(result.output));
        if (probs)
            job.read(*probs, result.probs.data(), bytesOf(result.probs));
        return result;
    }

    Tensor attentionProbabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options) override
    {
        checkAttentionInputs(q, k, nullptr, options);
        return probabilities(q, k, options, TileRange { 0, 0, q.dim(1), 0, k.dim(1) }, q.dim(0));
    }

    Tensor probabilityTile(const Tensor& q, const Tensor& k, const TileRange& range,
        const AttentionOptions& options) override
    {
        checkTileRange(q, k, range);
        checkAttentionInputs(q, k, nullptr, options);
        return probabilities(q, k, options, range, 1).reshaped({ range.q1 - range.q0, range.k1 - range.k0 });
    }

    void rope(Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims) override
    {
        checkRopeInputs(x, positionOffset, style, rotaryDims);
        if (style == RopeStyle::None)
            return;
        const int64_t heads = x.dim(0), t = x.dim(1), d = x.dim(2), half = rotaryDims / 2;
        if (x.empty() || half == 0)
            return;
        // The angle tables come from the CPU core itself: rotating a unit vector (1, 0) per pair yields exactly
        // (cos, sin) as the CPU computes them, so both backends use bit-identical angles.
        Tensor probe({ 1, t, rotaryDims });
        for (int64_t r = 0; r < t; ++r)
            for (int64_t i = 0; i < half; ++i)
                probe.data()[r * rotaryDims + (style == RopeStyle::Interleaved ? 2 * i : i)] = 1.0f;
        applyRope(probe, positionOffset, style, theta, rotaryDims);
        std::vector<float> cosTable(static_cast<size_t>(t * half)), sinTable(cosTable.size());
        for (int64_t r = 0; r < t; ++r)
            for (int64_t i = 0; i < half; ++i) {
                const float* row = probe.data() + r * rotaryDims;
                const bool inter = style == RopeStyle::Interleaved;
                cosTable[r * half + i] = row[inter ? 2 * i : i];
                sinTable[r * half + i] = row[inter ? 2 * i + 1 : i + half];
            }
        const RopeParams params { fits32(heads, "heads"), fits32(t, "tokens"), fits32(d, "head dim"),
            fits32(rotaryDims, "rotary dims"), style == RopeStyle::Interleaved ? 1u : 0u };
        fits32(x.numel(), "tensor size");
        const std::lock_guard lock(m_context.mutex());
        Job job(m_context);
        Job::Buffer& xb = job.input(x.data(), bytesOf(x), true);
        Job::Buffer& cb = job.input(cosTable.data(), cosTable.size() * sizeof(float));
        Job::Buffer& sb = job.input(sinTable.data(), sinTable.size() * sizeof(float));
        const int64_t groups = (heads * t * half + kRopeThreads - 1) / kRopeThreads;
        job.dispatch(m_context.kernel(kRopeKernel), { &xb, &cb, &sb }, &params,
            static_cast<uint32_t>(std::min<int64_t>(groups, m_context.limits().maxComputeWorkGroupCount[0])));
        job.run();
        job.read(xb, x.data(), bytesOf(x));
    }

    Tensor matmul(const Tensor& x, const Tensor& w, const Tensor* bias) override
    {
        checkMatmulInputs(x, w, bias);
        const int64_t in = w.dim(1), out = w.dim(0), rows = in > 0 ? x.numel() / in : 0;
        Shape yShape = x.shape();
        yShape.back() = out;
        Tensor y(yShape);
        if (y.empty())
            return y;
        const bool hasBias = bias && !bias->empty();
        const MatmulParams params { fits32(rows, "rows"), fits32(out, "output features"), fits32(in, "input features"),
            hasBias ? 1u : 0u };
        fits32(std::max({ rows * in, out * in, rows * out }), "matrix size");
        const std::lock_guard lock(m_context.mutex());
        Job job(m_context);
        Job::Buffer& xb = job.input(x.data(), bytesOf(x));
        Job::Buffer& wb = job.input(w.data(), bytesOf(w));
        Job::Buffer& bb = hasBias ? job.input(bias->data(), bytesOf(*bias)) : job.placeholder();
        Job::Buffer& yb = job.output(bytesOf(y));
        job.dispatch(m_context.kernel(kMatmulKernel), { &xb, &wb, &bb, &yb }, &params,
            static_cast<uint32_t>((out + kMatmulTile - 1) / kMatmulTile),
            static_cast<uint32_t>((rows + kMatmulTile - 1) / kMatmulTile));
        job.run();
        job.read(yb, y.data(), bytesOf(y));
        return y;
    }

private:
    void checkGroups(int64_t rows, int64_t heads) const
    {
        const auto& limit = m_context.limits().maxComputeWorkGroupCount;
        if (rows > limit[0] || heads > limit[1])
            throw DeviceFailure(std::to_string(rows) + " query rows x " + std::to_string(heads)
                + " heads exceed the device's workgroup count limit");
    }

    /// Probabilities of `heads` query heads from range.head, rows [q0, q1), columns [k0, k1).
    Tensor probabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options, const TileRange& range,
        int64_t heads)
    {
        Tensor probs({ heads, range.q1 - range.q0, range.k1 - range.k0 });
        if (probs.empty())
            return probs;
        const std::lock_guard lock(m_context.mutex());
        Job job(m_context);
        AttentionJob a = uploadAttention(job, q, k, nullptr, options);
        a.params.head0 = static_cast<uint32_t>(range.head);
        a.params.row0 = static_cast<uint32_t>(range.q0);
        a.params.col0 = static_cast<uint32_t>(range.k0);
        a.params.col1 = static_cast<uint32_t>(range.k1);
        Job::Buffer& out = job.output(bytesOf(probs));
        checkGroups(range.q1 - range.q0, heads);
        job.dispatch(m_context.kernel(kProbsKernel), a.bindings(&out), &a.params,
            static_cast<uint32_t>(range.q1 - range.q0), static_cast<uint32_t>(heads));
        job.run();
        job.read(out, probs.data(), bytesOf(probs));
        return probs;
    }

    vk::Context m_context;
};

} // namespace

std::unique_ptr<Backend> createVulkanBackend() { return std::make_unique<VulkanBackend>(); }

std::vector<DeviceInfo> vulkanDevices()
{
    const auto instance = vk::Instance::get();
    std::vector<DeviceInfo> out;
    for (auto device : instance->computeDevices())
        out.push_back(vk::describeDevice(device));
    return out;
}

} // namespace attn
