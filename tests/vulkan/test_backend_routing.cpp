// SPDX-License-Identifier: MIT
// Decoder forwards run on ForwardOptions::backend's stream: on the CPU backend the results are bit-identical to the
// plain CPU path, on Vulkan (the whole forward resident on the device) they match the HF goldens like the CPU does.
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

class CpuRouting : public ::testing::TestWithParam<const char*> { };

/// A forward given the CPU backend runs on that backend's stream: bit-identical to the plain CPU path.
TEST_P(CpuRouting, BitIdenticalToThePlainCpuPath)
{
    const std::string model = GetParam();
    const auto loaded = loadModel(model.find('/') != std::string::npos ? sharedPath("models/" + model)
                                                                      : sharedPath("fixtures/hf-tiny/" + model));
    const std::vector<int64_t> prompt { 1, 5, 9, 14, 3, 27, 8 };
    Session plain(loaded);
    CpuBackend cpu;
    ForwardOptions options;
    options.backend = &cpu;
    Session routed(loaded, options);
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
}

INSTANTIATE_TEST_SUITE_P(Decoders, CpuRouting, ::testing::Values("gpt2", "llama", "stories260K/stories260K.bin"),
    [](const auto& info) { return std::string(info.param).substr(0, std::string(info.param).find('/')); });

class VulkanRouting : public VulkanTest, public ::testing::WithParamInterface<const char*> { };

/// The whole forward on Vulkan against HF, then greedy steps through the cache.
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
