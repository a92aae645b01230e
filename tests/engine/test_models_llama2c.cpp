// SPDX-License-Identifier: MIT
// stories260K (Karpathy's tinyllamas) in both llama2.c layouts against the independent numpy reference: attention
// and logits of the first 32 positions and the 256-step greedy token ids; the weights read in place from the file.
#include "model/llama_model.h"
#include "model/model_loader.h"
#include "model_test_util.h"
#include "quant/packed_matrix.h"
#include "session/sampler.h"
#include "session/session.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

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

/// The address ranges at which this process maps `path` (from /proc/self/maps; empty where it is not mapped).
std::vector<std::pair<uintptr_t, uintptr_t>> mappingsOf(const std::string& path)
{
    const std::string want = std::filesystem::canonical(path).string();
    std::ifstream maps("/proc/self/maps");
    std::vector<std::pair<uintptr_t, uintptr_t>> out;
    for (std::string line; std::getline(maps, line);) {
        std::istringstream fields(line);
        std::string range, perms, offset, device, inode, file;
        fields >> range >> perms >> offset >> device >> inode >> file;
        if (file != want) continue;
        const size_t dash = range.find('-');
        out.emplace_back(
            std::stoull(range.substr(0, dash), nullptr, 16), std::stoull(range.substr(dash + 1), nullptr, 16));
    }
    return out;
}

/// Every weight matrix is float32 read where it lies in the file's mapping, as run.c reads it (they were copied
/// out, zero-filled first: half of a start-up's page faults), each at the offset the layout gives it, and the file
/// stays mapped exactly as long as the model lives.
TEST_P(Stories260K, WeightMatricesAreReadInPlaceFromTheMappingWhileTheModelLives)
{
    // Linux, the platform this builds for, always has it: a missing one fails rather than skips the check.
    ASSERT_TRUE(std::filesystem::exists("/proc/self/maps")) << "no /proc/self/maps to find the mapping in";
    const std::string path = test::sharedPath(std::string("models/stories260K/") + GetParam());
    ASSERT_TRUE(mappingsOf(path).empty());
    auto model = std::dynamic_pointer_cast<const LlamaModel>(loadModel(path));
    ASSERT_NE(model, nullptr);
    const auto ranges = mappingsOf(path);
    ASSERT_EQ(ranges.size(), 1u);
    const auto [begin, end] = ranges[0];
    const LlamaWeights& w = model->weights();
    const ModelConfig& c = model->config();
    const int64_t D = c.hiddenSize, kvDim = c.numKvHeads * c.headDim, I = c.intermediateSize;
    // Where each matrix of a layer lies, in floats: the legacy layout stacks each kind over the layers after the
    // embedding, v1 puts the norms first.
    const bool legacy = std::string(GetParam()) == "stories260K.bin";
    const uint64_t header = legacy ? 28 : 256;
    const int64_t L = c.numLayers, V = c.vocabSize;
    const int64_t embed = legacy ? 0 : 2 * L * D + D;
    const int64_t wq = embed + V * D + (legacy ? L * D : 0), wk = wq + L * D * D, wv = wk + L * kvDim * D;
    const int64_t wo = wv + L * kvDim * D, w1 = wo + L * D * D + (legacy ? L * D : 0), w2 = w1 + L * I * D;
    const int64_t w3 = w2 + L * D * I;
    const auto expectAt = [&](const Tensor& t, int64_t floats, const std::string& what) {
        ASSERT_NE(t.packed(), nullptr) << what << " was copied out of the mapping";
        EXPECT_EQ(t.packed()->type(), GgmlType::F32) << what;
        const auto at = reinterpret_cast<uintptr_t>(t.packed()->denseF32());
        EXPECT_EQ(at, begin + header + 4 * static_cast<uint64_t>(floats)) << what;
        EXPECT_LE(at + t.packed()->bytes(), end) << what;
    };
    expectAt(w.embed, embed, "embedding");
    EXPECT_TRUE(w.lmHead.empty()); // stories260K shares its classifier with the embedding
    for (int64_t l = 0; l < L; ++l) {
        const LlamaLayerWeights& lw = w.layers[static_cast<size_t>(l)];
        const std::string layer = "layer " + std::to_string(l) + " ";
        expectAt(lw.wq, wq + l * D * D, layer + "wq");
        expectAt(lw.wk, wk + l * kvDim * D, layer + "wk");
        expectAt(lw.wv, wv + l * kvDim * D, layer + "wv");
        expectAt(lw.wo, wo + l * D * D, layer + "wo");
        expectAt(lw.gate, w1 + l * I * D, layer + "w1");
        expectAt(lw.down, w2 + l * D * I, layer + "w2");
        expectAt(lw.up, w3 + l * I * D, layer + "w3");
    }
    model.reset();
    EXPECT_TRUE(mappingsOf(path).empty()) << "the mapping outlived the model";
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
