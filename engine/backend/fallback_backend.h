// SPDX-License-Identifier: MIT
#pragma once
// Runs each op on a primary backend (Vulkan) when it supports it, and on the CPU when it does not or when the device
// fails at run time (out of memory, device lost): the request still succeeds and the switch is reported once per cause.
#include "backend/backend.h"

#include <functional>
#include <memory>
#include <set>

namespace attn {

/// Receives plain-language notices such as "vulkan: device lost; running on the CPU".
using NoticeSink = std::function<void(const std::string&)>;

/// The default sink: one line on stderr.
void printNotice(const std::string& message);

class FallbackBackend final : public Backend {
public:
    FallbackBackend(std::unique_ptr<Backend> primary, std::unique_ptr<Backend> cpu, NoticeSink notice = printNotice);

    std::string name() const override;
    DeviceInfo device() const override;
    bool supportsOp(Op op) const override;

    AttentionResult attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options) override;
    Tensor attentionProbabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options) override;
    Tensor probabilityTile(const Tensor& q, const Tensor& k, const TileRange& range,
        const AttentionOptions& options) override;
    void rope(Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims) override;
    Tensor matmul(const Tensor& x, const Tensor& w, const Tensor* bias) override;
    void runStream(const LifetimeToken& weights, const std::function<void(Stream&)>& work) override;
    DeviceTraffic traffic() const override;

    /// How many requests ran on the CPU because the primary failed at run time.
    int64_t runtimeFallbacks() const { return m_runtimeFallbacks; }

private:
    template <class Fn>
    auto dispatch(Op op, Fn&& fn) -> decltype(fn(std::declval<Backend&>()));
    /// Counts the fallback, reports it (once per cause) and drops a lost device.
    void failed(const std::string& request, const DeviceFailure& failure);

    std::unique_ptr<Backend> m_primary; // null once the device is lost
    std::unique_ptr<Backend> m_cpu;
    NoticeSink m_notice;
    std::set<std::string> m_noticed; // each cause is reported once
    int64_t m_runtimeFallbacks = 0;
};

} // namespace attn
