// SPDX-License-Identifier: MIT
#pragma once
// The compute backend interface: the ops model code calls, implemented by the CPU reference and by Vulkan.
// Qt-free and Vulkan-free so that any layer (model, UI, CLI) may include it.
#include "attention/attention.h"
#include "backend/stream.h"
#include "core/tensor.h"
#include "model/model_config.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace attn {

/// The ops a backend may implement; the CPU backend implements all of them.
enum class Op {
    AttentionProbabilities, ///< softmax(Q K^T * scale + mask/bias) for all heads
    AttentionOutput, ///< fused attention output (probabilities only when asked for)
    ProbabilityTile, ///< P[q0:q1, k0:k1] of one head from stored Q and K
    Rope, ///< rotary position embedding in place
    Matmul, ///< y = x W^T [+ b]
};

const char* opName(Op op);

/// What a backend runs on (for `attnscope-cli info --devices` and the UI).
struct DeviceInfo {
    std::string backend; ///< "cpu" or "vulkan"
    std::string name; ///< e.g. "NVIDIA H200" or "llvmpipe (LLVM 15.0.6, 256 bits)"
    std::string type; ///< "cpu", "discrete-gpu", "integrated-gpu", "virtual-gpu", "software"
    uint32_t vendorId = 0;
    uint32_t deviceId = 0;
    uint64_t memoryBytes = 0; ///< largest device-local heap; 0 when not applicable
    std::string apiVersion; ///< e.g. "1.3.230"; empty for the CPU
    std::string driver; ///< driver name and version; empty for the CPU
};

/// Host-device traffic of a backend since it was made (all zero for the CPU).
struct DeviceTraffic {
    uint64_t uploadedBytes = 0;
    uint64_t downloadedBytes = 0;
    uint64_t submits = 0;
};

/// Rows [q0, q1) and columns [k0, k1) of one query head's probability matrix.
struct TileRange {
    int64_t head = 0;
    int64_t q0 = 0;
    int64_t q1 = 0;
    int64_t k0 = 0;
    int64_t k1 = 0;
};

/// A device-side failure (no device, out of device memory, device lost, missing feature): the caller may retry the
/// request on the CPU. Bad input is reported as attn::Error instead and is never retried.
class DeviceFailure : public std::runtime_error {
public:
    explicit DeviceFailure(const std::string& message, bool deviceLost = false)
        : std::runtime_error(message)
        , m_deviceLost(deviceLost)
    {
    }
    /// The device is gone for good: later requests should not try it again.
    bool deviceLost() const { return m_deviceLost; }

private:
    bool m_deviceLost;
};

/// One compute stream. Every op has the exact semantics of the CPU attention core (engine/attention/*.h):
/// results agree with the CPU backend to 1e-5 (fp32). Inputs are validated; bad shapes throw attn::Error.
class Backend {
public:
    virtual ~Backend() = default;
    Backend() = default;
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;

    virtual std::string name() const = 0;
    virtual DeviceInfo device() const = 0;
    virtual bool supportsOp(Op op) const = 0;

    /// multiHeadAttention(): probs [hq, q, k] only when options.wantProbs, output [hq, q, dv] always.
    virtual AttentionResult attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options)
        = 0;
    /// attentionProbabilities(): [hq, q, k].
    virtual Tensor attentionProbabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options) = 0;
    /// The [q1 - q0, k1 - k0] block of attentionProbabilities(q, k, options)[range.head] (rows are normalized over all
    /// keys, not only over the tile). q [hq, q, d], k [hkv, k, d] as stored by a session.
    virtual Tensor probabilityTile(const Tensor& q, const Tensor& k, const TileRange& range,
        const AttentionOptions& options)
        = 0;
    /// applyRope(): rotates x [heads, t, d] in place.
    virtual void rope(Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims) = 0;
    /// y = x W^T (+ b): x [..., in], w [out, in], bias empty or [out] -> y [..., out].
    virtual Tensor matmul(const Tensor& x, const Tensor& w, const Tensor* bias) = 0;

    /// Runs `work` on a stream of this backend; the base class gives the CPU stream. The weight tensors `work` passes
    /// to the stream belong to the object holding `weights` (the backend may keep device copies while it lives).
    /// FallbackBackend reruns `work` on the CPU when the device fails, so `work` must start afresh on every call.
    virtual void runStream(const LifetimeToken& weights, const std::function<void(Stream&)>& work);
    virtual DeviceTraffic traffic() const { return {}; }
};

/// backend->runStream(), or the CPU stream when backend is null.
void runStream(Backend* backend, const LifetimeToken& weights, const std::function<void(Stream&)>& work);

/// Shape checks shared by every backend (throw attn::Error naming the tensor).
void checkAttentionInputs(const Shape& q, const Shape& k, const Shape* v, const AttentionOptions& options);
void checkTileRange(const Tensor& q, const Tensor& k, const TileRange& range);
void checkRopeInputs(const Shape& x, int64_t positionOffset, RopeStyle style, int64_t rotaryDims);
void checkMatmulInputs(const Shape& x, const Tensor& w, const Tensor* bias);

} // namespace attn
