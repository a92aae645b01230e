// SPDX-License-Identifier: MIT
#include "backend/fallback_backend.h"

#include <iostream>

namespace attn {

void printNotice(const std::string& message) { std::cerr << "attnscope: " << message << "\n"; }

FallbackBackend::FallbackBackend(std::unique_ptr<Backend> primary, std::unique_ptr<Backend> cpu, NoticeSink notice)
    : m_primary(std::move(primary))
    , m_cpu(std::move(cpu))
    , m_notice(std::move(notice))
{
}

std::string FallbackBackend::name() const { return m_primary ? m_primary->name() : m_cpu->name(); }

DeviceInfo FallbackBackend::device() const { return m_primary ? m_primary->device() : m_cpu->device(); }

bool FallbackBackend::supportsOp(Op) const { return true; }

template <class Fn>
auto FallbackBackend::dispatch(Op op, Fn&& fn) -> decltype(fn(std::declval<Backend&>()))
{
    if (m_primary && m_primary->supportsOp(op)) {
        try {
            return fn(*m_primary);
        } catch (const DeviceFailure& e) {
            failed(opName(op), e);
        }
    }
    return fn(*m_cpu);
}

void FallbackBackend::failed(const std::string& request, const DeviceFailure& e)
{
    ++m_runtimeFallbacks;
    const std::string what = m_primary->name() + ": " + request + " failed (" + e.what() + ")";
    if (e.deviceLost()) {
        m_primary.reset();
        m_notice(what + "; the device is gone, running everything on the CPU from now on");
    } else if (m_noticed.insert(e.what()).second) {
        m_notice(what + "; running this request on the CPU");
    }
}

void FallbackBackend::runStream(const LifetimeToken& weights, const std::function<void(Stream&)>& work)
{
    if (m_primary) {
        try {
            m_primary->runStream(weights, work);
            return;
        } catch (const DeviceFailure& e) {
            failed("forward", e);
        }
    }
    m_cpu->runStream(weights, work);
}

DeviceTraffic FallbackBackend::traffic() const { return m_primary ? m_primary->traffic() : DeviceTraffic {}; }

AttentionResult FallbackBackend::attention(const Tensor& q, const Tensor& k, const Tensor& v,
    const AttentionOptions& options)
{
    return dispatch(Op::AttentionOutput, [&](Backend& b) { return b.attention(q, k, v, options); });
}

Tensor FallbackBackend::attentionProbabilities(const Tensor& q, const Tensor& k, const AttentionOptions& options)
{
    return dispatch(Op::AttentionProbabilities, [&](Backend& b) { return b.attentionProbabilities(q, k, options); });
}

Tensor FallbackBackend::probabilityTile(const Tensor& q, const Tensor& k, const TileRange& range,
    const AttentionOptions& options)
{
    return dispatch(Op::ProbabilityTile, [&](Backend& b) { return b.probabilityTile(q, k, range, options); });
}

void FallbackBackend::rope(Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims)
{
    dispatch(Op::Rope, [&](Backend& b) { b.rope(x, positionOffset, style, theta, rotaryDims); });
}

Tensor FallbackBackend::matmul(const Tensor& x, const Tensor& w, const Tensor* bias)
{
    return dispatch(Op::Matmul, [&](Backend& b) { return b.matmul(x, w, bias); });
}

} // namespace attn
