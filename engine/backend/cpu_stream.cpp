// SPDX-License-Identifier: MIT
#include "backend/stream.h"

#include "model/cached_attention.h"
#include "model/cancellable_linear.h"

namespace attn {

namespace {

struct HostValue final : StreamValue {
    explicit HostValue(Tensor t)
        : tensor(std::move(t))
    {
    }
    const Shape& shape() const override { return tensor.shape(); }
    Tensor tensor;
};

Tensor& host(const Value& v) { return static_cast<HostValue&>(*v).tensor; }

Value wrap(Tensor t) { return std::make_shared<HostValue>(std::move(t)); }

class CpuStream final : public Stream {
public:
    Value input(Tensor t) override { return wrap(std::move(t)); }
    Value constant(const Tensor& t, const LifetimeToken&) override { return wrap(t); }
    Value linear(const Value& x, const Tensor& w, const Tensor* bias) override
    {
        return wrap(product(host(x), w, bias));
    }
    Value rmsNorm(const Value& x, const Tensor& weight, double eps) override
    {
        return wrap(attn::rmsNorm(host(x), weight, eps));
    }
    Value layerNorm(const Value& x, const Tensor& weight, const Tensor& bias, double eps) override
    {
        Tensor y = host(x);
        layerNormInPlace(y, weight, bias, eps);
        return wrap(std::move(y));
    }
    void activate(const Value& x, Activation activation) override { applyActivation(host(x), activation); }
    void add(const Value& x, const Value& y) override { addInPlace(host(x), host(y)); }
    void multiply(const Value& x, const Value& y) override { multiplyInPlace(host(x), host(y)); }
    Value splitHeads(const Value& x, int64_t heads, int64_t dim, int64_t offset) override
    {
        return wrap(attn::splitHeads(host(x), heads, dim, offset));
    }
    void rope(const Value& x, int64_t positionOffset, const RotaryEmbedding& rope) override
    {
        applyRope(host(x), positionOffset, rope);
    }
    void clamp(const Value& x, float limit) override { clampInPlace(host(x), limit); }
    Value attention(const Value& q, const Value& k, const Value& v, const AttentionOptions& options, Tensor* probs) override
    {
        AttentionOptions o = options;
        o.wantProbs = probs != nullptr;
        AttentionResult a = multiHeadAttention(host(q), host(k), host(v), o);
        if (probs) *probs = std::move(a.probs);
        return wrap(mergeHeads(a.output));
    }
    Value cachedSelfAttention(KvCache& cache, int64_t layer, const Value& q, const Value& k, const Value& v,
        const CachedAttentionSpec& spec, Tensor* probs) override
    {
        return wrap(attn::cachedSelfAttention(cache, layer, host(q), host(k), host(v), spec, probs));
    }
    void scale(const Value& x, float factor) override
    {
        for (float& value : host(x).storage())
            value *= factor;
    }
    void edit(const Value& x, const std::function<void(Tensor&)>& change) override { change(host(x)); }
    void read(const Value& x, Tensor* dst) override { *dst = host(x); }
    void linearTo(const Value& x, const Tensor& w, const Tensor* bias, Tensor* dst) override
    {
        *dst = product(host(x), w, bias);
    }
    void take(Value x, Tensor* dst) override
    {
        if (x.use_count() == 1) // nobody else can see it any more (logits: [n, vocab], the largest value)
            *dst = std::move(host(x));
        else
            *dst = host(x);
    }
    void flush() override { }
    void cancelInsideProducts(const std::function<bool()>* cancelRequested) override { m_cancel = cancelRequested; }

private:
    Tensor product(const Tensor& x, const Tensor& w, const Tensor* bias) const
    {
        return m_cancel ? cancellableLinear(x, w, bias, *m_cancel) : attn::linear(x, w, bias);
    }

    const std::function<bool()>* m_cancel = nullptr;
};

} // namespace

std::unique_ptr<Stream> makeCpuStream() { return std::make_unique<CpuStream>(); }

} // namespace attn
