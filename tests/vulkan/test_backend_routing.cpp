// SPDX-License-Identifier: MIT
// Decoder forwards route their projections (matmul) and RoPE through ForwardOptions::backend: on the CPU backend the
// results are bit-identical to the plain CPU path, on Vulkan they match the HF goldens like the CPU does.
#include "vulkan_test_support.h"

#include "backend/cpu_backend.h"
#include "core/npy.h"
#include "model/model_loader.h"
#include "session/sampler.h"
#include "session/session.h"
#include "support/shared_data.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace attn::test {
namespace {

/// The CPU backend, counting the ops a forward sends to it.
class CountingBackend final : public Backend {
public:
    std::string name() const override { return "counting-cpu"; }
    DeviceInfo device() const override { return m_cpu.device(); }
    bool supportsOp(Op) const override { return true; }
    AttentionResult attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& o) override
    {
        ++attentions;
        return m_cpu.attention(q, k, v, o);
    }
    Tensor attentionProbabilities(const Tensor& q, const Tensor& k, const AttentionOptions& o) override
    {
        return m_cpu.attentionProbabilities(q, k, o);
    }
    Tensor probabilityTile(const Tensor& q, const Tensor& k, const TileRange& r, const AttentionOptions& o) override
    {
        return m_cpu.probabilityTile(q, k, r, o);
    }
    void rope(Tensor& x, int64_t offset, RopeStyle style, double theta, int64_t dims) override
    {
        ++ropes;
        m_cpu.rope(x, offset, style, theta, dims);
    }
    Tensor matmul(const Tensor& x, const Tensor& w, const Tensor* bias) override
    {
        ++matmuls;
        return m_cpu.matmul(x, w, bias);
    }

    int matmuls = 0;
    int ropes = 0;
    int attentions = 0;

private:
    CpuBackend m_cpu;
};

bool bitIdentical(const Tensor& a, const Tensor& b)
{
    return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), a.storage().size() * sizeof(float)) == 0;
}

std::string golden(const std::string& fixture, const std::string& file)
{
    return sharedPath("fixtures/hf-tiny/" + fixture + "/golden/item0/" + file);
}

double logitsTolerance(const std::string& fixture)
{
    std::ifstream in(sharedPath("fixtures/hf-tiny/" + fixture + "/manifest.json"));
    return nlohmann::json::parse(in)["suggested_tolerances"]["max_abs_diff"]["logits"].get<double>();
}

struct Expected {
    const char* label;
    const char* model; ///< a fixture name, or a path under models/
    int matmulsPerLayer;
    int ropesPerLayer;
};

class CpuRouting : public ::testing::TestWithParam<Expected> { };

TEST_P(CpuRouting, BitIdenticalToThePlainCpuPathAndEveryOpRouted)
{
    const Expected e = GetParam();
    const std::string path = std::strchr(e.model, '/') ? sharedPath(std::string("models/") + e.model)
                                                       : sharedPath(std::string("fixtures/hf-tiny/") + e.model);
    const auto model = loadModel(path);
    const std::vector<int64_t> prompt { 1, 5, 9, 14, 3, 27, 8 };
    Session plain(model);
    CountingBackend counting;
    ForwardOptions options;
    options.backend = &counting;
    Session routed(model, options);
    auto a = plain.prefill(prompt);
    auto b = routed.prefill(prompt);
    for (int step = 0; step < 3; ++step) { // KV-cache steps take the n == 1 (matrix-vector) path of linear()
        ASSERT_TRUE(bitIdentical(a->logits, b->logits)) << "step " << step;
        ASSERT_EQ(a->attention.size(), b->attention.size());
        for (size_t l = 0; l < a->attention.size(); ++l)
            ASSERT_TRUE(bitIdentical(a->attention[l], b->attention[l])) << "layer " << l << " step " << step;
        const int64_t next = argmax(a->logits.data() + (a->logits.dim(0) - 1) * a->logits.dim(1), a->logits.dim(1));
        a = plain.step(next);
        b = routed.step(next);
    }
    const int layers = static_cast<int>(model->config().numLayers), passes = 4;
    EXPECT_EQ(counting.matmuls, passes * (e.matmulsPerLayer * layers + 1)); // + the LM head
    EXPECT_EQ(counting.ropes, passes * e.ropesPerLayer * layers);
    EXPECT_GT(counting.attentions, 0);
}

INSTANTIATE_TEST_SUITE_P(Decoders, CpuRouting,
    ::testing::Values(Expected { "gpt2", "gpt2", 4, 0 }, Expected { "llama", "llama", 7, 2 },
        Expected { "stories260K", "stories260K/stories260K.bin", 7, 2 }),
    [](const auto& info) { return std::string(info.param.label); });

class VulkanRouting : public VulkanTest, public ::testing::WithParamInterface<const char*> { };

/// The whole forward with matmuls, RoPE and attention on Vulkan against HF, then greedy steps through the cache.
TEST_P(VulkanRouting, FixtureForwardAndGreedyStepsMatchHf)
{
    const std::string fixture = GetParam();
    const auto model = loadModel(sharedPath("fixtures/hf-tiny/" + fixture));
    ForwardOptions options;
    options.backend = &vk();
    Session session(model, options);
    auto r = session.prefill(readNpyInts(golden(fixture, "input_ids.npy")));
    double attention = 0;
    for (size_t l = 0; l < r->attention.size(); ++l)
        attention = std::max(attention,
            maxAbsDiff(r->attention[l], readNpy(golden(fixture, "attentions.L0" + std::to_string(l) + ".npy"))));
    ASSERT_EQ(r->attention.size(), static_cast<size_t>(model->config().numLayers));
    EXPECT_LE(attention, kParityTolerance);
    EXPECT_LE(maxAbsDiff(r->logits, readNpy(golden(fixture, "logits.npy"))), logitsTolerance(fixture));

    const std::vector<int64_t> expected = readNpyInts(golden(fixture, "greedy_ids.npy"));
    std::vector<int64_t> got;
    for (size_t s = 0; s < expected.size(); ++s) {
        const int64_t V = r->logits.dim(1);
        got.push_back(argmax(r->logits.data() + (r->logits.dim(0) - 1) * V, V));
        r = session.step(got.back());
    }
    EXPECT_EQ(got, expected);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, VulkanRouting, ::testing::Values("gpt2", "llama"));

} // namespace
} // namespace attn::test
