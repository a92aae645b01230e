// SPDX-License-Identifier: MIT
#include "vulkan/vk_stream.h"

#include "core/error.h"
#include "model/kv_cache.h"
#include "vulkan/vk_kernels.h"

#include <map>
#include <optional>
#include <span>
#include <tuple>

namespace attn::vk {

namespace {

struct DeviceValue final : StreamValue {
    DeviceValue(Shape s, BufferRef b)
        : dims(std::move(s))
        , buffer(std::move(b))
    {
    }
    const Shape& shape() const override { return dims; }
    Shape dims;
    BufferRef buffer;
};

const BufferRef& device(const Value& v) { return static_cast<const DeviceValue&>(*v).buffer; }

size_t floatBytes(int64_t count) { return static_cast<size_t>(count) * sizeof(float); }

void expectRank(const Value& v, size_t rank, const char* op)
{
    if (v->shape().size() != rank)
        throw Error(std::string(op) + ": input " + shapeToString(v->shape()) + " must have rank " + std::to_string(rank));
}

void expectSameSize(const Value& x, const Value& y, const char* op)
{
    if (shapeNumel(x->shape()) != shapeNumel(y->shape()))
        throw Error(std::string(op) + ": " + shapeToString(x->shape()) + " vs " + shapeToString(y->shape()));
}

/// A KV-cache append that reaches the host cache once the job that computed the rows has run.
struct PendingAppend {
    KvCache* cache;
    int64_t layer;
    Tensor q, k, v;
};

class VulkanStream final : public Stream {
public:
    VulkanStream(Context& context, BufferPool& pool, Resident& resident, Owner owner, DeviceTraffic& traffic)
        : m_context(context)
        , m_pool(pool)
        , m_resident(resident)
        , m_owner(std::move(owner))
        , m_traffic(traffic)
    {
    }

    Value input(Tensor host) override
    {
        return make(host.shape(), job().upload(host.data(), floatBytes(host.numel())));
    }

    Value constant(const Tensor& host, const LifetimeToken& owner) override
    {
        return make(host.shape(), m_resident.weight(owner.watch(), host.data(), host.numel(), m_traffic));
    }

    Value linear(const Value& x, const Tensor& w, const Tensor* bias) override
    {
        checkLinear(x, w, bias);
        return product(x, w, bias);
    }

    void linearTo(const Value& x, const Tensor& w, const Tensor* bias, Tensor* dst) override
    {
        checkLinear(x, w, bias);
        const int64_t rows = x->shape()[0], in = w.dim(1), out = w.dim(0);
        const int64_t limit = m_context.limits().maxStorageBufferRange / sizeof(float);
        const int64_t block = out > 0 ? std::max<int64_t>(1, std::min(rows, limit / out)) : rows;
        if (block >= rows) {
            take(product(x, w, bias), dst);
            return;
        }
        // Row blocks, each run and read back before the next, so the device holds one block of the product at a time.
        *dst = Tensor({ rows, out });
        for (int64_t r0 = 0; r0 < rows; r0 += block) {
            const int64_t n = std::min(block, rows - r0);
            const BufferRef xs = job().scratch(floatBytes(n * in));
            job().copy(device(x), xs, { VkBufferCopy { floatBytes(r0 * in), 0, floatBytes(n * in) } });
            const BufferRef y = job().scratch(floatBytes(n * out));
            multiply(xs, n, w, bias, y);
            job().download(y, floatBytes(n * out), dst->data() + r0 * out);
            flush();
        }
    }

    Value rmsNorm(const Value& x, const Tensor& w, double eps) override { return norm(x, w, nullptr, eps); }

    Value layerNorm(const Value& x, const Tensor& w, const Tensor& b, double eps) override
    {
        return norm(x, w, &b, eps);
    }

    void activate(const Value& x, Activation activation) override
    {
        recorder().activation(device(x), shapeNumel(x->shape()), activation);
    }

    void add(const Value& x, const Value& y) override
    {
        expectSameSize(x, y, "add");
        recorder().elementwise(device(x), device(y), shapeNumel(x->shape()), false);
    }

    void multiply(const Value& x, const Value& y) override
    {
        expectSameSize(x, y, "multiply");
        recorder().elementwise(device(x), device(y), shapeNumel(x->shape()), true);
    }

    Value splitHeads(const Value& x, int64_t heads, int64_t dim, int64_t offset) override
    {
        expectRank(x, 2, "splitHeads");
        const int64_t n = x->shape()[0], cols = x->shape()[1];
        if (offset < 0 || offset + heads * dim > cols)
            throw Error("splitHeads: " + std::to_string(heads) + " heads of " + std::to_string(dim) + " at column "
                + std::to_string(offset) + " exceed " + shapeToString(x->shape()));
        const BufferRef out = job().scratch(floatBytes(heads * n * dim));
        recorder().heads(device(x), out, n, heads, dim, cols, offset, false);
        return make({ heads, n, dim }, out);
    }

    void rope(const Value& x, int64_t positionOffset, const RotaryEmbedding& rope) override
    {
        checkRopeInputs(x->shape(), positionOffset, rope.style, rope.rotaryDims);
        const Shape& s = x->shape();
        // Every layer rotates its queries and keys at the same positions: one set of tables per forward.
        Recorder::RopeTables& tables
            = m_ropeTables[{ s[1], positionOffset, rope.style, rope.rotaryDims, rope.invFreq, rope.cosSinScale }];
        if (!tables.cos)
            tables = recorder().ropeTables(s[1], positionOffset, rope);
        recorder().rope(device(x), s[0], s[1], s[2], rope.style, rope.rotaryDims, tables);
    }

    void clamp(const Value& x, float limit) override { recorder().clamp(device(x), shapeNumel(x->shape()), limit); }

    Value attention(const Value& q, const Value& k, const Value& v, const AttentionOptions& options, Tensor* probs) override
    {
        checkAttentionInputs(q->shape(), k->shape(), &v->shape(), options);
        AttentionOperands a;
        a.q = device(q);
        a.k = device(k);
        a.v = device(v);
        recorder().attachMasks(a, q->shape(), k->shape(), v->shape()[2], options);
        return attendAndMerge(a, probs, options.headScale);
    }

    void scale(const Value& x, float factor) override { recorder().scale(device(x), shapeNumel(x->shape()), factor); }

    Value cachedSelfAttention(KvCache& cache, int64_t layer, const Value& q, const Value& k, const Value& v,
        const CachedAttentionSpec& spec, Tensor* probs) override
    {
        const Shape &qs = q->shape(), &ks = k->shape(), &vs = v->shape();
        cache.checkRows(qs, ks, vs); // before anything is recorded: the host append comes only at flush()
        const int64_t hq = qs[0], n = qs[1], d = qs[2], hkv = ks[0], dv = vs[2];
        const int64_t past = cache.length(), total = past + n;
        AttentionOptions options;
        options.scale = spec.scale;
        options.mask.causal = true;
        options.mask.queryOffset = past;
        options.mask.slidingWindow = spec.slidingWindow;
        options.softcap = spec.softcap;
        options.mask.bias = spec.bias;
        options.mask.keepMask = spec.keep;
        options.headScale = spec.headScale;
        const Shape keys { hkv, total, d };
        checkAttentionInputs(qs, keys, nullptr, options);
        LayerMirror& m = m_resident.syncLayer(job(), cache, layer, total);
        // The new rows join the mirror after the valid ones, head by head.
        for (const auto& [rows, mirror, dim] :
            { std::tuple { device(k), m.k, d }, std::tuple { device(v), m.v, dv } }) {
            std::vector<VkBufferCopy> regions;
            for (int64_t g = 0; g < hkv; ++g)
                regions.push_back({ floatBytes(g * n * dim), floatBytes((g * m.capacity + past) * dim),
                    floatBytes(n * dim) });
            job().copy(rows, mirror, regions);
        }
        m.valid = total;
        // The host cache gets the same rows after the job has run.
        PendingAppend& append = m_appends.emplace_back(PendingAppend { &cache, layer, Tensor(qs), Tensor(ks), Tensor(vs) });
        job().download(device(q), floatBytes(hq * n * d), append.q.data());
        job().download(device(k), floatBytes(hkv * n * d), append.k.data());
        job().download(device(v), floatBytes(hkv * n * dv), append.v.data());

        AttentionOperands a;
        a.q = device(q);
        a.k = m.k;
        a.v = m.v;
        recorder().attachMasks(a, qs, keys, dv, options);
        a.params.kvRows = fits32(m.capacity, "kv rows");
        return attendAndMerge(a, probs, spec.headScale);
    }

    void read(const Value& x, Tensor* dst) override
    {
        *dst = Tensor(x->shape());
        job().download(device(x), floatBytes(dst->numel()), dst->data());
    }

    void take(Value x, Tensor* dst) override { read(x, dst); }

    void edit(const Value& x, const std::function<void(Tensor&)>& change) override
    {
        Tensor host;
        read(x, &host);
        flush();
        change(host);
        if (host.shape() != x->shape())
            throw Error(
                "edit: the change reshaped " + shapeToString(x->shape()) + " to " + shapeToString(host.shape()));
        job().uploadInto(device(x), 0, host.data(), floatBytes(host.numel()));
    }

    void flush() override
    {
        if (m_job) {
            m_job->run();
            m_traffic.uploadedBytes += m_job->uploadedBytes();
            m_traffic.downloadedBytes += m_job->downloadedBytes();
            ++m_traffic.submits;
            m_job.reset();
        }
        for (PendingAppend& a : m_appends)
            a.cache->append(a.layer, a.q, a.k, a.v);
        m_appends.clear();
    }

private:
    Job& job()
    {
        if (!m_job)
            m_job = std::make_unique<Job>(m_context, m_pool);
        return *m_job;
    }
    Recorder recorder() { return Recorder(m_context, job()); }
    Value make(Shape shape, BufferRef buffer) { return std::make_shared<DeviceValue>(std::move(shape), std::move(buffer)); }
    BufferRef weight(const Tensor& w) { return m_resident.weight(m_owner, w.data(), w.numel(), m_traffic); }

    void checkLinear(const Value& x, const Tensor& w, const Tensor* bias) const
    {
        expectRank(x, 2, "linear");
        checkMatmulInputs(x->shape(), w, bias);
    }

    /// linear() once the shapes are checked.
    Value product(const Value& x, const Tensor& w, const Tensor* bias)
    {
        const int64_t rows = x->shape()[0], out = w.dim(0);
        const BufferRef y = job().scratch(floatBytes(rows * out));
        multiply(device(x), rows, w, bias, y);
        return make({ rows, out }, y);
    }

    /// y [rows, out] = x [rows, in] W^T (+ bias); a weight larger than one storage buffer may be (GPT-2's tied LM head
    /// on lavapipe) goes up and is multiplied in row blocks.
    void multiply(const BufferRef& x, int64_t rows, const Tensor& w, const Tensor* bias, const BufferRef& y)
    {
        const int64_t in = w.dim(1), out = w.dim(0);
        std::optional<BufferRef> bb;
        if (bias)
            bb = weight(*bias);
        const int64_t limit = m_context.limits().maxStorageBufferRange / sizeof(float);
        const int64_t block = in > 0 ? std::max<int64_t>(1, std::min(out, limit / in)) : out;
        for (int64_t n0 = 0; n0 < out; n0 += block) {
            const int64_t count = std::min(block, out - n0);
            const BufferRef wb = w.packed() ? m_resident.packedRows(m_owner, *w.packed(), n0, count, m_traffic)
                                            : m_resident.weight(m_owner, w.data() + n0 * in, count * in, m_traffic);
            recorder().matmul(x, wb, bb ? &*bb : nullptr, rows, in, count, y, out, n0);
        }
    }

    /// Attention output of all heads merged to [nq, hq * dv]; with probs, *probs gets [hq, nq, nk] at flush. A head
    /// scale multiplies each head's output and probabilities after the kernels, as the CPU core does after the softmax.
    Value attendAndMerge(const AttentionOperands& a, Tensor* probs, std::span<const float> headScale)
    {
        const int64_t hq = a.params.hq, n = a.params.nq, nk = a.params.nk, dv = a.params.dv;
        const BufferRef heads = job().scratch(floatBytes(hq * n * dv));
        recorder().attentionOutput(a, heads);
        std::optional<BufferRef> factors;
        if (!headScale.empty()) {
            factors = job().upload(headScale.data(), floatBytes(hq));
            recorder().scaleBlocks(heads, *factors, hq, n * dv);
        }
        if (probs) {
            *probs = Tensor({ hq, n, nk });
            const BufferRef p = job().scratch(floatBytes(probs->numel()));
            recorder().attentionProbs(a, p, hq);
            if (factors)
                recorder().scaleBlocks(p, *factors, hq, n * nk);
            job().download(p, floatBytes(probs->numel()), probs->data());
        }
        const BufferRef merged = job().scratch(floatBytes(n * hq * dv));
        recorder().heads(heads, merged, n, hq, dv, hq * dv, 0, true);
        return make({ n, hq * dv }, merged);
    }

    Value norm(const Value& x, const Tensor& w, const Tensor* b, double eps)
    {
        const int64_t d = x->shape().empty() ? 0 : x->shape().back();
        if (w.numel() != d || (b && b->numel() != d))
            throw Error("norm: weight " + shapeToString(w.shape()) + " does not fit input " + shapeToString(x->shape()));
        const int64_t rows = d ? shapeNumel(x->shape()) / d : 0;
        const BufferRef y = job().scratch(floatBytes(rows * d));
        const BufferRef wb = weight(w);
        std::optional<BufferRef> bb;
        if (b)
            bb = weight(*b);
        recorder().norm(device(x), wb, bb ? &*bb : nullptr, rows, d, eps, y);
        return make(x->shape(), y);
    }

    Context& m_context;
    BufferPool& m_pool;
    Resident& m_resident;
    Owner m_owner;
    DeviceTraffic& m_traffic;
    std::unique_ptr<Job> m_job;
    std::vector<PendingAppend> m_appends;
    std::map<std::tuple<int64_t, int64_t, RopeStyle, int64_t, std::vector<float>, float>, Recorder::RopeTables>
        m_ropeTables;
};

} // namespace

std::unique_ptr<Stream> makeVulkanStream(
    Context& context, BufferPool& pool, Resident& resident, Owner owner, DeviceTraffic& traffic)
{
    return std::make_unique<VulkanStream>(context, pool, resident, std::move(owner), traffic);
}

} // namespace attn::vk
