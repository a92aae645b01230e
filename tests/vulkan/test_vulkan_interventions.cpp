// SPDX-License-Identifier: MIT
// Head masks and edits on the resident Vulkan stream against the CPU stream, op by op and through whole models.
#include "vulkan_test_support.h"

#include "core/npy.h"
#include "intervention/intervention.h"
#include "intervention/layer_reuse.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "session/session.h"
#include "support/shared_data.h"

namespace attn::test {
namespace {

class VulkanInterventions : public VulkanTest { };

// GQA 8 query heads on 2 KV heads, prefill then a step: the masked outputs and probabilities agree with the CPU core
// (which multiplies after its softmax) within the parity tolerance.
TEST_F(VulkanInterventions, HeadScaleInCachedAndPlainAttentionMatchesTheCpu)
{
    const std::vector<float> scale { 1.0f, 0.0f, 0.5f, 2.0f, 1.0f, 1.0f, 0.0f, -1.0f };
    KvCache cpuCache(1, 8, 2, 32, 32), gpuCache(1, 8, 2, 32, 32);
    for (const int64_t n : { 17, 1 }) {
        const auto seed = static_cast<uint32_t>(n + 3);
        const Tensor q = randomTensor({ 8, n, 32 }, seed), k = randomTensor({ 2, n, 32 }, seed + 1),
                     v = randomTensor({ 2, n, 32 }, seed + 2);
        const auto attend = [&](KvCache& cache, Tensor* probs, Tensor* out, Tensor* plainProbs, Tensor* plainOut) {
            return [&, probs, out, plainProbs, plainOut](Stream& s) {
                s.read(
                    s.cachedSelfAttention(cache, 0, s.input(q), s.input(k), s.input(v), { .headScale = scale }, probs),
                    out);
                AttentionOptions options;
                options.headScale = scale;
                s.read(s.attention(s.input(q), s.input(k), s.input(v), options, plainProbs), plainOut);
                s.flush();
                cache.commit(n);
            };
        };
        Tensor cpu[4], gpu[4];
        const LifetimeToken noWeights;
        runStream(nullptr, noWeights, attend(cpuCache, &cpu[0], &cpu[1], &cpu[2], &cpu[3]));
        vk().runStream(noWeights, attend(gpuCache, &gpu[0], &gpu[1], &gpu[2], &gpu[3]));
        for (int i = 0; i < 4; ++i)
            EXPECT_LE(maxAbsDiff(gpu[i], cpu[i]), kParityTolerance) << "n " << n << " value " << i;
        // Head 1 is removed: its probabilities are exactly 0 on the device too.
        for (int64_t j = 0; j < n * cpuCache.length(); ++j)
            ASSERT_EQ(gpu[0].data()[n * cpuCache.length() + j], 0.0f);
    }
}

// The per-op backend calls (what the views use for derived rows and tiles) apply the head scale as the CPU core.
TEST_F(VulkanInterventions, HeadScaleInPerOpCallsMatchesTheCpu)
{
    const std::vector<float> scale { 0.0f, 0.5f, 1.0f, 3.0f };
    const Tensor q = randomTensor({ 4, 9, 16 }, 21), k = randomTensor({ 2, 9, 16 }, 22),
                 v = randomTensor({ 2, 9, 16 }, 23);
    AttentionOptions options;
    options.mask.causal = true;
    options.headScale = scale;
    const AttentionResult cpu = multiHeadAttention(q, k, v, options);
    const AttentionResult gpu = vk().attention(q, k, v, options);
    EXPECT_LE(maxAbsDiff(gpu.output, cpu.output), kParityTolerance);
    EXPECT_LE(maxAbsDiff(gpu.probs, cpu.probs), kParityTolerance);
    EXPECT_LE(maxAbsDiff(vk().attentionProbabilities(q, k, options), cpu.probs), kParityTolerance);
    const Tensor tile = vk().probabilityTile(q, k, TileRange { 3, 2, 7, 0, 9 }, options);
    for (int64_t r = 0; r < 5; ++r)
        for (int64_t c = 0; c < 9; ++c)
            EXPECT_NEAR(tile.data()[r * 9 + c], cpu.probs.data()[(3 * 9 + 2 + r) * 9 + c], kParityTolerance);
}

// An edit reads the value back, changes it and writes it into the same device value, which later ops then use.
TEST_F(VulkanInterventions, EditChangesTheDeviceValueInPlace)
{
    const Tensor x = randomTensor({ 5, 6 }, 11);
    Tensor cpu, gpu;
    const auto ops = [&](Tensor* out) {
        return [&, out](Stream& s) {
            const Value v = s.input(x);
            s.scale(v, 2.0f);
            s.edit(v, [](Tensor& t) { t.data()[7] = 100.0f; });
            s.scale(v, 0.5f);
            s.read(v, out);
            s.flush();
        };
    };
    const LifetimeToken noWeights;
    runStream(nullptr, noWeights, ops(&cpu));
    vk().runStream(noWeights, ops(&gpu));
    EXPECT_LE(maxAbsDiff(gpu, cpu), kParityTolerance);
    EXPECT_EQ(gpu.data()[7], 50.0f);
}

// Whole masked models on the device against the HF head_mask goldens, with the manifest's tolerances.
TEST_F(VulkanInterventions, MaskedFixturesOnVulkanMatchHf)
{
    for (const std::string name : { "gpt2-head-mask", "llama-head-mask", "bert-head-mask" }) {
        const std::string dir = sharedPath("fixtures/hf-tiny/" + name);
        const auto model = loadModel(dir);
        const std::vector<int64_t> ids = readNpyInts(dir + "/golden/item0/input_ids.npy");
        for (const std::string c : { "one_head", "whole_layer", "half", "scaled" }) {
            Intervention mask;
            mask.headMask = readNpy(dir + "/head_masks/" + c + ".npy");
            ForwardOptions options;
            options.backend = &vk();
            options.intervention = &mask;
            Session session(model, options);
            const auto r = session.prefill(ids);
            EXPECT_LE(maxAbsDiff(r->logits, readNpy(dir + "/golden/item0/" + c + "/logits.npy")), 1e-4) << name << c;
            for (size_t l = 0; l < r->attention.size(); ++l)
                EXPECT_LE(maxAbsDiff(r->attention[l],
                              readNpy(dir + "/golden/item0/" + c + "/attentions.L0" + std::to_string(l) + ".npy")),
                    1e-5)
                    << name << " " << c << " layer " << l;
        }
    }
}

// Key masks (per head on GQA, and from every head) through a whole model on the device: prefill and a decode step
// agree with the CPU, the hidden keys get exactly zero attention there too, and a re-run from the first changed layer
// equals the device's full forward.
TEST_F(VulkanInterventions, KeyMasksAndReruns)
{
    const std::string dir = sharedPath("fixtures/hf-tiny/llama-head-mask");
    const auto model = loadModel(dir);
    const std::vector<int64_t> ids = readNpyInts(dir + "/golden/item0/input_ids.npy");
    Intervention hide;
    hide.keyMasks.push_back({ { 1, 3 }, { { 1, 0 }, { 1, 3 } } });
    hide.keyMasks.push_back({ { 2 }, {} });
    std::shared_ptr<const StepResult> results[2][2];
    for (const bool device : { false, true }) {
        ForwardOptions options;
        options.backend = device ? &vk() : nullptr;
        options.intervention = &hide;
        Session session(model, options);
        results[device][0] = session.prefill(ids);
        results[device][1] = session.step(ids[0]);
    }
    for (int s = 0; s < 2; ++s) {
        const StepResult &cpu = *results[0][s], &gpu = *results[1][s];
        EXPECT_LE(maxAbsDiff(gpu.logits, cpu.logits), 1e-4) << "step " << s;
        for (size_t l = 0; l < cpu.attention.size(); ++l) {
            EXPECT_LE(maxAbsDiff(gpu.attention[l], cpu.attention[l]), kParityTolerance)
                << "step " << s << " layer " << l;
            const Tensor& a = gpu.attention[l];
            const int64_t rows = a.dim(1), keys = a.dim(2);
            for (int64_t h = 0; h < a.dim(0); ++h)
                for (int64_t r = 0; r < rows; ++r) {
                    EXPECT_EQ(a.data()[(h * rows + r) * keys + 2], 0.0f);
                    if (l == 1 && (h == 0 || h == 3)) {
                        EXPECT_EQ(a.data()[(h * rows + r) * keys + 1], 0.0f);
                        EXPECT_EQ(a.data()[(h * rows + r) * keys + 3], 0.0f);
                    }
                }
        }
    }
    Intervention upper;
    upper.keyMasks.push_back({ { 1, 3 }, { { 1, 0 } } });
    ForwardOptions options;
    options.backend = &vk();
    const ReusableRun run(*std::dynamic_pointer_cast<const DecoderModel>(model), ids, options);
    options.intervention = &upper;
    Session full(model, options);
    EXPECT_LE(maxAbsDiff(run.rerun(upper).logits, full.prefill(ids)->logits), 1e-5);
}

} // namespace
} // namespace attn::test
