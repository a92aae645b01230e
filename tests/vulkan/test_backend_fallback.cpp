// SPDX-License-Identifier: MIT
// Backend choice and CPU fallback: no Vulkan driver at all, and a device that fails at run time.
#include "vulkan_test_support.h"

#include "backend/backend_registry.h"
#include "backend/cpu_backend.h"
#include "core/error.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "support/shared_data.h"

#include <stdexcept>
#include <vector>

namespace attn::test {
namespace {

const std::string kNoIcd = "VK_DRIVER_FILES=/nonexistent VK_ICD_FILENAMES=/nonexistent ";

TEST(BackendChoice, ParsesTheThreeNames)
{
    EXPECT_EQ(parseBackendChoice("auto"), BackendChoice::Auto);
    EXPECT_EQ(parseBackendChoice("cpu"), BackendChoice::Cpu);
    EXPECT_EQ(parseBackendChoice("vulkan"), BackendChoice::Vulkan);
    EXPECT_THROW(parseBackendChoice("gpu"), Error);
}

TEST(BackendChoice, AutoFallsBackToCpuWithoutAnIcd)
{
    std::string out;
    const int rc = runCommand(kNoIcd + cliPath() + " info --devices --backend auto 2>&1", &out);
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("running on the CPU"), std::string::npos) << out;
    EXPECT_NE(out.find("\"selected\": \"cpu\""), std::string::npos) << out;
    EXPECT_NE(out.find("\"vulkan_problem\""), std::string::npos) << out;
}

TEST(BackendChoice, ExplicitVulkanWithoutAnIcdIsAClearError)
{
    std::string out;
    const int rc = runCommand(kNoIcd + cliPath() + " info --devices --backend vulkan 2>&1", &out);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find("vulkan backend unavailable"), std::string::npos) << out;
    EXPECT_EQ(out.find("\"selected\""), std::string::npos) << out;
}

TEST(BackendChoice, CpuNeverTouchesVulkan)
{
    std::string out;
    EXPECT_EQ(runCommand(kNoIcd + cliPath() + " info --devices --backend cpu 2>&1", &out), 0) << out;
    EXPECT_EQ(out.find("running on the CPU"), std::string::npos) << out; // nothing to warn about
    auto sel = createBackend(BackendChoice::Cpu);
    ASSERT_TRUE(sel.ok());
    EXPECT_EQ(sel->backend->name(), "cpu");
    EXPECT_TRUE(sel->notice.empty());
}

/// A device that fails every request the way a real one can.
class FailingBackend final : public Backend {
public:
    FailingBackend(bool lost, int* calls)
        : m_lost(lost)
        , m_calls(calls)
    {
    }
    std::string name() const override { return "failing"; }
    DeviceInfo device() const override { return {}; }
    bool supportsOp(Op op) const override { return op == Op::AttentionProbabilities; }
    AttentionResult attention(const Tensor&, const Tensor&, const Tensor&, const AttentionOptions&) override
    {
        throw std::logic_error("unsupported op dispatched");
    }
    Tensor probabilityTile(const Tensor&, const Tensor&, const TileRange&, const AttentionOptions&) override
    {
        throw std::logic_error("unsupported op dispatched");
    }
    void rope(Tensor&, int64_t, RopeStyle, double, int64_t) override { throw std::logic_error("unsupported op"); }
    Tensor matmul(const Tensor&, const Tensor&, const Tensor*) override { throw std::logic_error("unsupported op"); }
    Tensor attentionProbabilities(const Tensor&, const Tensor&, const AttentionOptions&) override
    {
        ++*m_calls;
        throw DeviceFailure(m_lost ? "vkQueueSubmit failed: VK_ERROR_DEVICE_LOST" : "vkAllocateMemory failed: "
                                                                                    "VK_ERROR_OUT_OF_DEVICE_MEMORY",
            m_lost);
    }

private:
    bool m_lost;
    int* m_calls;
};

TEST(FallbackBackend, OutOfDeviceMemoryRunsTheRequestOnTheCpuAndSaysSoOnce)
{
    int calls = 0;
    std::vector<std::string> notices;
    FallbackBackend b(std::make_unique<FailingBackend>(false, &calls), std::make_unique<CpuBackend>(),
        [&](const std::string& m) { notices.push_back(m); });
    const Tensor q = randomTensor({ 4, 5, 16 }, 1), k = randomTensor({ 2, 5, 16 }, 2);
    const Tensor expected = CpuBackend().attentionProbabilities(q, k, {});
    EXPECT_EQ(maxAbsDiff(b.attentionProbabilities(q, k, {}), expected), 0.0);
    EXPECT_EQ(maxAbsDiff(b.attentionProbabilities(q, k, {}), expected), 0.0);
    EXPECT_EQ(calls, 2); // the device is tried again: memory may be free next time
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("OUT_OF_DEVICE_MEMORY"), std::string::npos);
    EXPECT_NE(notices[0].find("on the CPU"), std::string::npos);
    EXPECT_EQ(b.runtimeFallbacks(), 2);
    EXPECT_EQ(b.name(), "failing");
}

TEST(FallbackBackend, DeviceLostSwitchesToTheCpuForGood)
{
    int calls = 0;
    std::vector<std::string> notices;
    FallbackBackend b(std::make_unique<FailingBackend>(true, &calls), std::make_unique<CpuBackend>(),
        [&](const std::string& m) { notices.push_back(m); });
    const Tensor q = randomTensor({ 2, 3, 8 }, 1), k = randomTensor({ 2, 3, 8 }, 2);
    const Tensor expected = CpuBackend().attentionProbabilities(q, k, {});
    EXPECT_EQ(maxAbsDiff(b.attentionProbabilities(q, k, {}), expected), 0.0);
    EXPECT_EQ(maxAbsDiff(b.attentionProbabilities(q, k, {}), expected), 0.0);
    EXPECT_EQ(calls, 1);
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("DEVICE_LOST"), std::string::npos);
    EXPECT_EQ(b.name(), "cpu");
}

TEST(FallbackBackend, UnsupportedOpsGoStraightToTheCpu)
{
    int calls = 0;
    std::vector<std::string> notices;
    FallbackBackend b(std::make_unique<FailingBackend>(false, &calls), std::make_unique<CpuBackend>(),
        [&](const std::string& m) { notices.push_back(m); });
    const Tensor x = randomTensor({ 3, 8 }, 1), w = randomTensor({ 4, 8 }, 2);
    EXPECT_EQ(maxAbsDiff(b.matmul(x, w, nullptr), CpuBackend().matmul(x, w, nullptr)), 0.0);
    EXPECT_TRUE(notices.empty());
}

TEST(FallbackBackend, BadInputIsNotRetriedOnTheCpu)
{
    std::vector<std::string> notices;
    FallbackBackend b(std::make_unique<CpuBackend>(), std::make_unique<CpuBackend>(),
        [&](const std::string& m) { notices.push_back(m); });
    EXPECT_THROW(b.attentionProbabilities(randomTensor({ 3, 2, 8 }, 1), randomTensor({ 2, 2, 8 }, 2), {}), Error);
    EXPECT_TRUE(notices.empty());
}

/// A device whose stream fails at its `failAt`-th flush, after earlier layers already reached the KV cache.
class FailingStreamBackend final : public Backend {
public:
    explicit FailingStreamBackend(int failAt)
        : m_failAt(failAt)
    {
    }
    std::string name() const override { return "failing"; }
    DeviceInfo device() const override { return {}; }
    bool supportsOp(Op) const override { return false; }
    AttentionResult attention(const Tensor&, const Tensor&, const Tensor&, const AttentionOptions&) override
    {
        throw std::logic_error("unsupported op dispatched");
    }
    Tensor attentionProbabilities(const Tensor&, const Tensor&, const AttentionOptions&) override
    {
        throw std::logic_error("unsupported op dispatched");
    }
    Tensor probabilityTile(const Tensor&, const Tensor&, const TileRange&, const AttentionOptions&) override
    {
        throw std::logic_error("unsupported op dispatched");
    }
    void rope(Tensor&, int64_t, RopeStyle, double, int64_t) override { throw std::logic_error("unsupported op"); }
    Tensor matmul(const Tensor&, const Tensor&, const Tensor*) override { throw std::logic_error("unsupported op"); }

    void runStream(const LifetimeToken& weights, const std::function<void(Stream&)>& work) override
    {
        Backend::runStream(weights, [&](Stream& cpu) {
            FlushCounter counting(cpu, m_failAt);
            work(counting);
        });
    }

private:
    /// The CPU stream, throwing DeviceFailure on the failAt-th flush.
    class FlushCounter final : public Stream {
    public:
        FlushCounter(Stream& inner, int failAt)
            : m_inner(inner)
            , m_failAt(failAt)
        {
        }
        Value input(Tensor host) override { return m_inner.input(std::move(host)); }
        Value constant(const Tensor& host, const LifetimeToken& owner) override { return m_inner.constant(host, owner); }
        Value linear(const Value& x, const Tensor& w, const Tensor* b) override { return m_inner.linear(x, w, b); }
        Value rmsNorm(const Value& x, const Tensor& w, double eps) override { return m_inner.rmsNorm(x, w, eps); }
        Value layerNorm(const Value& x, const Tensor& w, const Tensor& b, double eps) override
        {
            return m_inner.layerNorm(x, w, b, eps);
        }
        void activate(const Value& x, Activation a) override { m_inner.activate(x, a); }
        void add(const Value& x, const Value& y) override { m_inner.add(x, y); }
        void multiply(const Value& x, const Value& y) override { m_inner.multiply(x, y); }
        Value splitHeads(const Value& x, int64_t h, int64_t d, int64_t o) override { return m_inner.splitHeads(x, h, d, o); }
        void rope(const Value& x, int64_t o, const RotaryEmbedding& r) override { m_inner.rope(x, o, r); }
        void clamp(const Value& x, float limit) override { m_inner.clamp(x, limit); }
        Value attention(const Value& q, const Value& k, const Value& v, const AttentionOptions& o, Tensor* p) override
        {
            return m_inner.attention(q, k, v, o, p);
        }
        Value cachedSelfAttention(KvCache& cache, int64_t layer, const Value& q, const Value& k, const Value& v,
            const CachedAttentionSpec& spec, Tensor* probs) override
        {
            return m_inner.cachedSelfAttention(cache, layer, q, k, v, spec, probs);
        }
        void scale(const Value& x, float factor) override { m_inner.scale(x, factor); }
        void edit(const Value& x, const std::function<void(Tensor&)>& change) override { m_inner.edit(x, change); }
        void read(const Value& x, Tensor* dst) override { m_inner.read(x, dst); }
        void take(Value x, Tensor* dst) override { m_inner.take(std::move(x), dst); }
        void linearTo(const Value& x, const Tensor& w, const Tensor* b, Tensor* dst) override
        {
            m_inner.linearTo(x, w, b, dst);
        }
        void flush() override
        {
            if (++m_flushes == m_failAt)
                throw DeviceFailure("vkQueueSubmit failed: VK_ERROR_OUT_OF_DEVICE_MEMORY");
            m_inner.flush();
        }

    private:
        Stream& m_inner;
        int m_failAt;
        int m_flushes = 0;
    };

    int m_failAt;
};

TEST(FallbackBackend, AForwardThatFailsMidwayRerunsWholeOnTheCpu)
{
    const auto model = loadModel(sharedPath("fixtures/hf-tiny/llama"));
    const auto& decoder = dynamic_cast<const DecoderModel&>(*model);
    std::vector<std::string> notices;
    FallbackBackend b(std::make_unique<FailingStreamBackend>(2), std::make_unique<CpuBackend>(),
        [&](const std::string& m) { notices.push_back(m); });
    ForwardOptions failing, plain;
    failing.backend = &b;
    KvCache cache = decoder.newCache(), reference = decoder.newCache();
    const std::vector<int64_t> prompt { 1, 5, 9, 14 };
    const StepResult got = decoder.forward(cache, prompt, failing);
    const StepResult want = decoder.forward(reference, prompt, plain);
    EXPECT_EQ(maxAbsDiff(got.logits, want.logits), 0.0);
    ASSERT_EQ(got.attention.size(), want.attention.size());
    for (size_t l = 0; l < want.attention.size(); ++l)
        EXPECT_EQ(maxAbsDiff(got.attention[l], want.attention[l]), 0.0) << "layer " << l;
    // The failed attempt's first layer left nothing behind: the cache holds each position once.
    EXPECT_EQ(cache.length(), 4);
    EXPECT_EQ(maxAbsDiff(cache.keys(0, 0), reference.keys(0, 0)), 0.0);
    EXPECT_EQ(b.runtimeFallbacks(), 1);
    ASSERT_EQ(notices.size(), 1u);
    EXPECT_NE(notices[0].find("forward failed"), std::string::npos) << notices[0];
}

class AutoChoice : public VulkanTest { };

TEST_F(AutoChoice, TakesAGpuButLeavesASoftwareDeviceToAnExplicitChoice)
{
    std::vector<std::string> notices;
    auto sel = createBackend(BackendChoice::Auto, [&](const std::string& m) { notices.push_back(m); });
    ASSERT_TRUE(sel.ok()) << sel.error();
    if (vk().device().type == "software") { // lavapipe in CI
        EXPECT_EQ(sel->backend->name(), "cpu");
        EXPECT_NE(sel->notice.find("only a software Vulkan device"), std::string::npos) << sel->notice;
        EXPECT_NE(sel->notice.find("running on the CPU"), std::string::npos) << sel->notice;
        auto explicitChoice = createBackend(BackendChoice::Vulkan);
        ASSERT_TRUE(explicitChoice.ok()) << explicitChoice.error();
        EXPECT_EQ(explicitChoice->backend->name(), "vulkan");
    } else {
        EXPECT_EQ(sel->backend->name(), "vulkan");
        EXPECT_TRUE(sel->notice.empty()) << sel->notice;
    }
    EXPECT_TRUE(notices.empty());
}

} // namespace
} // namespace attn::test
