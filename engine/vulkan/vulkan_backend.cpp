// SPDX-License-Identifier: MIT
// The Vulkan backend: single ops upload their operands, run a kernel and read the result back; runStream() keeps a
// whole forward, the model's weights and a mirror of the KV cache in device memory.
#include "vulkan/vulkan_backend.h"

#include "vulkan/vk_context.h"
#include "vulkan/vk_kernels.h"
#include "vulkan/vk_resident.h"
#include "vulkan/vk_stream.h"

#include <optional>

namespace attn {

namespace {

using vk::BufferRef;
using vk::Job;
using vk::Recorder;

size_t bytesOf(const Tensor& t) { return static_cast<size_t>(t.numel()) * sizeof(float); }

class VulkanBackend final : public Backend {
public:
    std::string name() const override { return "vulkan"; }
    DeviceInfo device() const override { return m_context.info(); }
    bool supportsOp(Op) const override { return true; }
    DeviceTraffic traffic() const override
    {
        const std::lock_guard lock(m_context.mutex());
        return m_traffic;
    }

    AttentionResult attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options) override
    {
        checkAttentionInputs(q.shape(), k.shape(), &v.shape(), options);
        const int64_t hq = q.dim(0), nq = q.dim(1), nk = k.dim(1), dv = v.dim(2);
        AttentionResult result;
        result.output = Tensor({ hq, nq, dv });
        if (options.wantProbs)
            result.probs = Tensor({ hq, nq, nk });
        if (result.output.empty() || nk == 0)
            return result; // nothing to attend to: zeros, as the CPU core
        const std::lock_guard lock(m_context.mutex());
        Job job(m_context, m_pool);
        Recorder rec(m_context, job);
        const vk::AttentionOperands a = rec.attentionOperands(q, k, &v, options);
        const BufferRef out = job.scratch(bytesOf(result.output));
        rec.attentionOutput(a, out);
        job.download(out, bytesOf(result.output), result.output.data());
        if (options.wantProbs) {
            const BufferRef probs = job.scratch(bytesOf(result.probs));
            rec.attentionProbs(a, probs, hq);
            job.download(probs, bytesOf(result.probs), result.probs.data());
        }
        submit(job);
        scaleHeads(result.output, options.headScale);
        scaleHeads(result.probs, options.headScale);
        return result;
    }

    Tensor attentionProbabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options) override
    {
        checkAttentionInputs(q.shape(), k.shape(), nullptr, options);
        return probabilities(q, k, options, TileRange { 0, 0, q.dim(1), 0, k.dim(1) }, q.dim(0));
    }

    Tensor probabilityTile(const Tensor& q, const Tensor& k, const TileRange& range,
        const AttentionOptions& options) override
    {
        checkTileRange(q, k, range);
        checkAttentionInputs(q.shape(), k.shape(), nullptr, options);
        return probabilities(q, k, options, range, 1).reshaped({ range.q1 - range.q0, range.k1 - range.k0 });
    }

    void rope(Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims) override
    {
        checkRopeInputs(x.shape(), positionOffset, style, rotaryDims);
        if (style == RopeStyle::None || x.empty())
            return;
        const std::lock_guard lock(m_context.mutex());
        Job job(m_context, m_pool);
        const BufferRef xb = job.upload(x.data(), bytesOf(x));
        Recorder rec(m_context, job);
        rec.rope(xb, x.dim(0), x.dim(1), x.dim(2), style, rotaryDims,
            rec.ropeTables(x.dim(1), positionOffset, plainRotary(style, theta, rotaryDims)));
        job.download(xb, bytesOf(x), x.data());
        submit(job);
    }

    Tensor matmul(const Tensor& x, const Tensor& w, const Tensor* bias) override
    {
        checkMatmulInputs(x.shape(), w, bias);
        const int64_t in = w.dim(1), out = w.dim(0), rows = in > 0 ? x.numel() / in : 0;
        Shape yShape = x.shape();
        yShape.back() = out;
        Tensor y(yShape);
        if (y.empty())
            return y;
        const std::lock_guard lock(m_context.mutex());
        Job job(m_context, m_pool);
        const BufferRef xb = job.upload(x.data(), bytesOf(x));
        const BufferRef wb = job.upload(w.data(), bytesOf(w));
        std::optional<BufferRef> bb;
        if (bias && !bias->empty())
            bb = job.upload(bias->data(), bytesOf(*bias));
        const BufferRef yb = job.scratch(bytesOf(y));
        Recorder(m_context, job).matmul(xb, wb, bb ? &*bb : nullptr, rows, in, out, yb);
        job.download(yb, bytesOf(y), y.data());
        submit(job);
        return y;
    }

    void runStream(const LifetimeToken& weights, const std::function<void(Stream&)>& work) override
    {
        const std::lock_guard lock(m_context.mutex());
        m_resident.sweep();
        const auto stream = vk::makeVulkanStream(m_context, m_pool, m_resident, weights.watch(), m_traffic);
        work(*stream);
        stream->flush();
    }

private:
    void submit(Job& job)
    {
        job.run();
        m_traffic.uploadedBytes += job.uploadedBytes();
        m_traffic.downloadedBytes += job.downloadedBytes();
        ++m_traffic.submits;
    }

    /// Probabilities of `heads` query heads from range.head, rows [q0, q1), columns [k0, k1).
    Tensor probabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options, const TileRange& range,
        int64_t heads)
    {
        Tensor probs({ heads, range.q1 - range.q0, range.k1 - range.k0 });
        if (probs.empty())
            return probs;
        const std::lock_guard lock(m_context.mutex());
        Job job(m_context, m_pool);
        Recorder rec(m_context, job);
        vk::AttentionOperands a = rec.attentionOperands(q, k, nullptr, options);
        a.params.head0 = static_cast<uint32_t>(range.head);
        a.params.row0 = static_cast<uint32_t>(range.q0);
        a.params.row1 = static_cast<uint32_t>(range.q1);
        a.params.col0 = static_cast<uint32_t>(range.k0);
        a.params.col1 = static_cast<uint32_t>(range.k1);
        const BufferRef out = job.scratch(bytesOf(probs));
        rec.attentionProbs(a, out, heads);
        job.download(out, bytesOf(probs), probs.data());
        submit(job);
        if (!options.headScale.empty())
            scaleHeads(probs, options.headScale.subspan(static_cast<size_t>(range.head), static_cast<size_t>(heads)));
        return probs;
    }

    // Declaration order is destruction order in reverse: device copies go before the pool, the pool before the device.
    vk::Context m_context;
    vk::BufferPool m_pool { m_context };
    vk::Resident m_resident { m_context, m_pool };
    DeviceTraffic m_traffic;
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
