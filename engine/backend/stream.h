// SPDX-License-Identifier: MIT
#pragma once
// A forward pass recorded op by op on one backend, with every intermediate value kept on that backend: on Vulkan the
// whole forward stays in device memory and only the inputs, the KV rows and what the caller reads cross the bus.
// Model code is written once against this interface; the CPU stream runs the very functions of layers.cpp, so CPU
// results are bit-identical to calling them directly.
#include "attention/attention.h"
#include "attention/rope.h"
#include "core/lifetime.h"
#include "core/tensor.h"
#include "model/cached_attention.h"
#include "model/layers.h"

#include <cstdint>
#include <functional>
#include <memory>

namespace attn {

class KvCache;

/// A tensor held by a stream (device memory on Vulkan). Only its shape is visible; read() brings the data back.
class StreamValue {
public:
    virtual ~StreamValue() = default;
    virtual const Shape& shape() const = 0;
};

using Value = std::shared_ptr<StreamValue>;

/// The ops of the decoder families, with the semantics of the layers.cpp / attention functions named on each.
/// Weight tensors passed in belong to the model the stream was opened for and must not change while it lives.
class Stream {
public:
    virtual ~Stream() = default;

    /// A host tensor as a stream value.
    virtual Value input(Tensor host) = 0;
    /// A host tensor that stays unchanged while `owner` lives (an encoder's cross-attention keys and values, read by
    /// every decode step): the device keeps its copy instead of receiving it again. Use it read-only.
    virtual Value constant(const Tensor& host, const LifetimeToken& owner) = 0;
    /// linear(): x [n, in], w [out, in], bias null or [out] -> [n, out].
    virtual Value linear(const Value& x, const Tensor& w, const Tensor* bias) = 0;
    /// rmsNorm() -> a new value.
    virtual Value rmsNorm(const Value& x, const Tensor& weight, double eps) = 0;
    /// layerNormInPlace() on a copy of x -> a new value.
    virtual Value layerNorm(const Value& x, const Tensor& weight, const Tensor& bias, double eps) = 0;
    /// applyActivation() in place.
    virtual void activate(const Value& x, Activation activation) = 0;
    /// addInPlace(): x += y.
    virtual void add(const Value& x, const Value& y) = 0;
    /// multiplyInPlace(): x *= y.
    virtual void multiply(const Value& x, const Value& y) = 0;
    /// splitHeads(): columns [offset, offset + heads * dim) of x [n, C] -> [heads, n, dim].
    virtual Value splitHeads(const Value& x, int64_t heads, int64_t dim, int64_t offset) = 0;
    /// applyRope() in place on x [heads, t, d].
    virtual void rope(const Value& x, int64_t positionOffset, const RotaryEmbedding& rope) = 0;
    /// clampInPlace(): x clamped to [-limit, limit] (olmo's clip_qkv).
    virtual void clamp(const Value& x, float limit) = 0;
    /// multiHeadAttention() of q [hq, nq, d], k [hkv, nk, d], v [hkv, nk, dv] under options.mask (host tensors)
    /// -> merged heads [nq, hq * dv]. With probs, *probs receives [hq, nq, nk] by flush().
    virtual Value attention(const Value& q, const Value& k, const Value& v, const AttentionOptions& options, Tensor* probs)
        = 0;
    /// cachedSelfAttention(): appends q [hq, n, d], k and v [hkv, n, *] to `layer` of `cache` and attends causally
    /// over all its positions -> merged heads [n, hq * dv]. With probs, *probs receives [hq, n, total] by flush().
    virtual Value cachedSelfAttention(KvCache& cache, int64_t layer, const Value& q, const Value& k, const Value& v,
        const CachedAttentionSpec& spec, Tensor* probs)
        = 0;
    /// x *= factor.
    virtual void scale(const Value& x, float factor) = 0;
    /// Runs `change` on x's data in place (interventions): a device stream runs what is recorded, reads x back and
    /// writes the changed data into x again, so this is a slow path.
    virtual void edit(const Value& x, const std::function<void(Tensor&)>& change) = 0;
    /// *dst receives x as it is at this point of the stream, at the latest when flush() returns.
    virtual void read(const Value& x, Tensor* dst) = 0;
    /// read() of a value the caller is done with (a temporary): the CPU stream moves it instead of copying.
    virtual void take(Value x, Tensor* dst) = 0;
    /// take(linear(x, w, bias), dst) for the largest product of a forward (the logits): a device computes it in row
    /// blocks when it would not fit one of its buffers.
    virtual void linearTo(const Value& x, const Tensor& w, const Tensor* bias, Tensor* dst) = 0;
    /// Runs everything recorded so far and completes the reads (the CPU stream runs each op as it is called).
    virtual void flush() = 0;
    /// From now on asks *cancelRequested between blocks of each linear() and linearTo() (true: Cancelled): on the CPU
    /// one MLP or LM head product of a long input was the longest stretch of a forward without a check. The CPU
    /// stream computes them with cancellableLinear() (model/cancellable_linear.h: linear()'s result within a float32
    /// dot product's rounding); device streams ignore it (their checks are between layers, at flush). Null: no checks
    /// inside products. Not owned.
    virtual void cancelInsideProducts(const std::function<bool()>* cancelRequested) { (void)cancelRequested; }
};

/// The CPU stream: each op runs at once with the functions it names.
std::unique_ptr<Stream> makeCpuStream();

} // namespace attn
