// SPDX-License-Identifier: MIT
// The resident Vulkan stream against the CPU stream, op by op (max abs error <= 1e-5), and what stays on the device
// across forwards: weights uploaded once, and a KV mirror that follows the host cache through CPU steps and rewinds.
#include "vulkan_test_support.h"

#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "session/session.h"
#include "support/shared_data.h"

#include <cmath>
#include <functional>

namespace attn::test {
namespace {

class VulkanStreamTest : public VulkanTest {
protected:
    /// Runs `ops` on the CPU stream and on the Vulkan stream; `ops` returns the values to compare. The weights of each
    /// call are new tensors, so each call has its own owner token.
    void expectSameOnBoth(const std::function<std::vector<Value>(Stream&)>& ops, double tolerance = kParityTolerance)
    {
        std::vector<Tensor> cpu, gpu;
        const auto collect = [&](std::vector<Tensor>& out) {
            return [&](Stream& s) {
                const std::vector<Value> values = ops(s);
                out.resize(values.size());
                for (size_t i = 0; i < values.size(); ++i)
                    s.read(values[i], &out[i]);
                s.flush();
            };
        };
        const LifetimeToken weights;
        runStream(nullptr, weights, collect(cpu));
        vk().runStream(weights, collect(gpu));
        ASSERT_EQ(cpu.size(), gpu.size());
        for (size_t i = 0; i < cpu.size(); ++i)
            EXPECT_LE(maxAbsDiff(gpu[i], cpu[i]), tolerance) << "value " << i;
    }
};

TEST_F(VulkanStreamTest, ProjectionsNormsAndElementwiseOpsMatchTheCpu)
{
    for (const int64_t rows : { 1, 7, 64, 129 })
        for (const int64_t dim : { 16, 64, 80, 128 }) {
            SCOPED_TRACE("rows " + std::to_string(rows) + " dim " + std::to_string(dim));
            const auto seed = static_cast<uint32_t>(rows * 1000 + dim);
            const Tensor x = randomTensor({ rows, dim }, seed), y = randomTensor({ rows, dim }, seed + 1);
            const Tensor w = randomTensor({ 3 * dim, dim }, seed + 2, 1.0f / std::sqrt(float(dim)));
            const Tensor bias = randomTensor({ 3 * dim }, seed + 3);
            const Tensor gamma = randomTensor({ dim }, seed + 4), beta = randomTensor({ dim }, seed + 5);
            expectSameOnBoth([&](Stream& s) {
                const Value a = s.input(x), b = s.input(y);
                const Value withBias = s.linear(a, w, &bias), plain = s.linear(b, w, nullptr);
                const Value rms = s.rmsNorm(a, gamma, 1e-5), ln = s.layerNorm(b, gamma, beta, 1e-5);
                const Value sum = s.input(x), product = s.input(x);
                s.add(sum, b);
                s.multiply(product, b);
                return std::vector<Value> { withBias, plain, rms, ln, sum, product };
            });
        }
}

TEST_F(VulkanStreamTest, EveryActivationMatchesTheCpu)
{
    // Wide inputs reach the tails of erf and tanh, where approximations go wrong first.
    const Tensor x = randomTensor({ 129, 80 }, 7, 4.0f);
    for (const Activation a : { Activation::Relu, Activation::Gelu, Activation::GeluTanh, Activation::Silu }) {
        SCOPED_TRACE("activation " + std::to_string(static_cast<int>(a)));
        expectSameOnBoth([&](Stream& s) {
            const Value v = s.input(x);
            s.activate(v, a);
            return std::vector<Value> { v };
        });
    }
}

TEST_F(VulkanStreamTest, HeadSplitsAndRopeMatchTheCpu)
{
    for (const RopeStyle style : { RopeStyle::RotateHalf, RopeStyle::Interleaved })
        for (const int64_t d : { 16, 64, 80, 128 }) {
            SCOPED_TRACE("d " + std::to_string(d));
            const Tensor x = randomTensor({ 7, 3 * 4 * d }, static_cast<uint32_t>(d));
            expectSameOnBoth([&](Stream& s) {
                const Value fused = s.input(x);
                const Value q = s.splitHeads(fused, 4, d, 0), k = s.splitHeads(fused, 4, d, 8 * d);
                s.rope(q, 5, plainRotary(style, 10000.0, d));
                s.rope(k, 999, plainRotary(style, 500000.0, d / 2));
                return std::vector<Value> { q, k };
            });
        }
}

/// The ops issue 16's families added: clip_qkv's clamp, a scaled rotation (RoPE scaling's own frequencies and
/// longrope's cos/sin factor) and gemma2's attention soft-capping.
TEST_F(VulkanStreamTest, ClampScaledRopeAndSoftcapMatchTheCpu)
{
    const Tensor x = randomTensor({ 33, 96 }, 41, 3.0f);
    expectSameOnBoth([&](Stream& s) {
        const Value v = s.input(x);
        s.clamp(v, 2.0f);
        return std::vector<Value> { v };
    });
    RotaryEmbedding scaled = plainRotary(RopeStyle::RotateHalf, 10000.0, 16);
    for (size_t i = 0; i < scaled.invFreq.size(); ++i)
        scaled.invFreq[i] /= 1.0f + static_cast<float>(i); // any frequencies: the tables come from the host
    scaled.cosSinScale = 1.19f;
    expectSameOnBoth([&](Stream& s) {
        const Value q = s.splitHeads(s.input(x), 4, 24, 0);
        s.rope(q, 37, scaled);
        return std::vector<Value> { q };
    });
    const Tensor q = randomTensor({ 4, 9, 16 }, 42, 4.0f), k = randomTensor({ 2, 9, 16 }, 43, 4.0f),
                 v = randomTensor({ 2, 9, 16 }, 44);
    for (const float cap : { 0.0f, 5.0f, 50.0f }) {
        SCOPED_TRACE("softcap " + std::to_string(cap));
        Tensor cpuProbs, gpuProbs, cpuOut, gpuOut;
        AttentionOptions options;
        options.softcap = cap;
        options.mask.causal = true;
        options.mask.slidingWindow = 4;
        const auto attend = [&](Tensor* probs, Tensor* out) {
            return [&, probs, out](Stream& s) {
                s.read(s.attention(s.input(q), s.input(k), s.input(v), options, probs), out);
                s.flush();
            };
        };
        const LifetimeToken noWeights;
        runStream(nullptr, noWeights, attend(&cpuProbs, &cpuOut));
        vk().runStream(noWeights, attend(&gpuProbs, &gpuOut));
        EXPECT_LE(maxAbsDiff(gpuProbs, cpuProbs), kParityTolerance);
        EXPECT_LE(maxAbsDiff(gpuOut, cpuOut), kParityTolerance);
    }
}

struct CacheShape {
    int64_t hq, hkv, d, window;
};

/// Prefill then decode steps through a KV cache on both streams: outputs, probabilities and the host caches agree.
TEST_F(VulkanStreamTest, CachedAttentionThroughPrefillAndStepsMatchesTheCpu)
{
    for (const CacheShape c : { CacheShape { 8, 8, 16, 0 }, CacheShape { 8, 2, 64, 0 }, CacheShape { 8, 1, 80, 7 },
             CacheShape { 8, 2, 128, 0 } }) {
        SCOPED_TRACE("heads " + std::to_string(c.hq) + "/" + std::to_string(c.hkv) + " d " + std::to_string(c.d)
            + " window " + std::to_string(c.window));
        KvCache cpuCache(1, c.hq, c.hkv, c.d, c.d), gpuCache(1, c.hq, c.hkv, c.d, c.d);
        for (const int64_t n : { 129, 1, 1, 64, 1 }) {
            const auto seed = static_cast<uint32_t>(n + cpuCache.length() * 7 + c.d);
            const Tensor q = randomTensor({ c.hq, n, c.d }, seed), k = randomTensor({ c.hkv, n, c.d }, seed + 1),
                         v = randomTensor({ c.hkv, n, c.d }, seed + 2);
            const auto attend = [&](KvCache& cache, Tensor* probs, Tensor* out) {
                return [&, probs, out](Stream& s) {
                    s.read(s.cachedSelfAttention(cache, 0, s.input(q), s.input(k), s.input(v), { .slidingWindow = c.window }, probs),
                        out);
                    s.flush();
                    cache.commit(n);
                };
            };
            Tensor cpuProbs, cpuOut, gpuProbs, gpuOut;
            const LifetimeToken noWeights;
            runStream(nullptr, noWeights, attend(cpuCache, &cpuProbs, &cpuOut));
            vk().runStream(noWeights, attend(gpuCache, &gpuProbs, &gpuOut));
            EXPECT_LE(maxAbsDiff(gpuOut, cpuOut), kParityTolerance) << "n " << n;
            EXPECT_LE(maxAbsDiff(gpuProbs, cpuProbs), kParityTolerance) << "n " << n;
        }
        ASSERT_EQ(gpuCache.length(), cpuCache.length());
        for (int64_t g = 0; g < c.hkv; ++g) { // the host cache received the very rows the device used
            EXPECT_EQ(maxAbsDiff(gpuCache.keys(0, g), cpuCache.keys(0, g)), 0.0);
            EXPECT_EQ(maxAbsDiff(gpuCache.values(0, g), cpuCache.values(0, g)), 0.0);
        }
    }
}

TEST_F(VulkanStreamTest, DecodeStepsUploadNoWeights)
{
    const auto model = loadModel(sharedPath("models/stories260K/stories260K.bin"));
    const ModelConfig& c = model->config();
    ForwardOptions options;
    options.backend = &vk();
    Session session(model, options);
    const DeviceTraffic start = vk().traffic();
    auto r = session.prefill({ 1, 403, 407, 261, 378 });
    const DeviceTraffic prefilled = vk().traffic();
    // Every weight went up with the first forward: the token embedding (the tied LM head) alone is V x D floats.
    EXPECT_GE(prefilled.uploadedBytes - start.uploadedBytes, uint64_t(c.vocabSize * c.hiddenSize * 4));
    uint64_t previous = 0;
    for (int step = 0; step < 4; ++step) {
        const DeviceTraffic before = vk().traffic();
        r = session.step(7);
        const DeviceTraffic after = vk().traffic();
        const uint64_t uploaded = after.uploadedBytes - before.uploadedBytes;
        // A step sends the token's embedding row and the RoPE angles, less than one [D, D] projection.
        EXPECT_LT(uploaded, uint64_t(c.hiddenSize * c.hiddenSize * 4)) << "step " << step;
        if (step > 0) {
            EXPECT_EQ(uploaded, previous) << "step " << step; // no re-sync of the KV mirror
        }
        previous = uploaded;
        EXPECT_EQ(after.submits - before.submits, uint64_t(c.numLayers + 1)); // one per layer, one for the head
    }
    // Back one position (the GUI's Back): the mirror keeps the rows before the cut, nothing is sent again.
    session.rewind(1);
    const DeviceTraffic before = vk().traffic();
    session.step(9);
    EXPECT_EQ(vk().traffic().uploadedBytes - before.uploadedBytes, previous);
}

/// One host cache, forwards alternating between the CPU and Vulkan, with rewinds: the device mirror catches up from
/// the host whenever it is behind, and every result equals the all-CPU run.
TEST_F(VulkanStreamTest, KvMirrorFollowsCpuStepsAndRewinds)
{
    const auto model = loadModel(sharedPath("fixtures/hf-tiny/llama"));
    const auto& decoder = dynamic_cast<const DecoderModel&>(*model);
    KvCache mixed = decoder.newCache(), reference = decoder.newCache();
    ForwardOptions cpu, gpu;
    cpu.wantAttention = gpu.wantAttention = true;
    gpu.backend = &vk();
    struct Step {
        std::vector<int64_t> tokens;
        bool onVulkan;
        int64_t rewindTo; ///< -1: no rewind before the step
    };
    const std::vector<Step> steps { { { 1, 5, 9, 14, 3 }, false, -1 }, { { 27 }, true, -1 }, { { 8 }, false, -1 },
        { { 2, 4 }, true, -1 }, { { 11 }, true, 3 }, { { 6 }, false, -1 }, { { 12 }, true, -1 } };
    for (size_t i = 0; i < steps.size(); ++i) {
        const Step& s = steps[i];
        if (s.rewindTo >= 0) {
            mixed.truncate(s.rewindTo);
            reference.truncate(s.rewindTo);
        }
        const StepResult got = decoder.forward(mixed, s.tokens, s.onVulkan ? gpu : cpu);
        const StepResult want = decoder.forward(reference, s.tokens, cpu);
        EXPECT_LE(maxAbsDiff(got.logits, want.logits), 1e-4) << "step " << i;
        ASSERT_EQ(got.attention.size(), want.attention.size());
        for (size_t l = 0; l < want.attention.size(); ++l)
            EXPECT_LE(maxAbsDiff(got.attention[l], want.attention[l]), kParityTolerance) << "step " << i << " layer " << l;
    }
}

} // namespace
} // namespace attn::test
