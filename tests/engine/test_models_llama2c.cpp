// SPDX-License-Identifier: MIT
// stories260K (Karpathy's tinyllamas) in both llama2.c layouts against the independent numpy reference: attention
// and logits of the first 32 positions and the 256-step greedy token ids.
#include "model/model_loader.h"
#include "model_test_util.h"
#include "session/sampler.h"
#include "session/session.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace attn {
namespace {

using test::maxAbsDiff;

std::vector<int64_t> referenceIds() {
    std::ifstream in(test::sharedPath("models/stories260K/reference_greedy_token_ids.json"));
    return nlohmann::json::parse(in)["token_ids"].get<std::vector<int64_t>>();
}

/// Reference [layer, head, 32, 32] -> layer l as [head, 32, 32].
Tensor referenceLayer(const Tensor& all, int64_t l) {
    const int64_t per = all.numel() / all.dim(0);
    return Tensor(
        { all.dim(1), all.dim(2), all.dim(3) }, std::vector<float>(all.data() + l * per, all.data() + (l + 1) * per));
}

class Stories260K : public ::testing::TestWithParam<const char*> { };

TEST_P(Stories260K, First32PositionsMatchReferenceAttentionAndLogits) {
    const auto model = loadModel(test::sharedPath(std::string("models/stories260K/") + GetParam()));
    const ModelConfig& c = model->config();
    EXPECT_EQ(c.numLayers, 5);
    EXPECT_EQ(c.numHeads, 8);
    EXPECT_EQ(c.numKvHeads, 4);
    const Tensor refAttn = readNpy(test::sharedPath("models/stories260K/reference_attn_first32_L5_H8_32x32.npy"));
    const Tensor refLogits = readNpy(test::sharedPath("models/stories260K/reference_logits_first32_x512.npy"));
    const std::vector<int64_t> ids = referenceIds();
    const std::vector<int64_t> first32(ids.begin(), ids.begin() + 32);

    Session session(model);
    const auto r = session.prefill(first32);
    double attn = 0;
    for (int64_t l = 0; l < 5; ++l)
        attn = std::max(attn, maxAbsDiff(r->attention[static_cast<size_t>(l)], referenceLayer(refAttn, l)));
    const double logits = maxAbsDiff(r->logits, refLogits);
    std::printf("%s: max abs error attention %.2e, logits %.2e (|logits| <= 22)\n", GetParam(), attn, logits);
    EXPECT_LE(attn, 1e-5);
    EXPECT_LE(logits, 1e-4); // ~1e-5 relative at magnitude 22, as the provenance states
}

TEST_P(Stories260K, Greedy256StepsReproduceTheReferenceIds) {
    const auto model = loadModel(test::sharedPath(std::string("models/stories260K/") + GetParam()));
    const std::vector<int64_t> expected = referenceIds();
    ASSERT_EQ(expected.size(), 257u);
    Session session(model);
    session.reserve(256);
    std::vector<int64_t> got { 1 };
    for (int pos = 0; pos < 256; ++pos) {
        const auto r = session.step(got.back());
        got.push_back(argmax(r->logits.data(), r->logits.dim(1)));
    }
    EXPECT_EQ(got, expected);
}

INSTANTIATE_TEST_SUITE_P(Layouts, Stories260K, ::testing::Values("stories260K.bin", "stories260K_v1.bin"),
    [](const auto& info) { return std::string(info.index == 0 ? "legacy" : "v1"); });

TEST(Llama2cLoader, TruncatedCheckpointIsRefused) {
    const std::string dir = test::makeTempDir("llama2c");
    std::ifstream in(test::sharedPath("models/stories260K/stories260K_v1.bin"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes.resize(bytes.size() - 4096);
    std::ofstream(dir + "/cut.bin", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    try {
        loadModel(dir + "/cut.bin");
        FAIL() << "a truncated checkpoint loaded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace attn
