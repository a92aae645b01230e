// SPDX-License-Identifier: MIT
// Packed weights (kept in their file's block format): products and look-ups against the same weights widened to
// float32, and GGUF weights staying in place in the file's mapping.
#include "backend/cpu_packed_matmul.h"
#include "core/error.h"
#include "core/half.h"
#include "core/npy.h"
#include "io/gguf.h"
#include "model/gguf_weights.h"
#include "model/gpt2_model.h"
#include "model/kv_cache.h"
#include "model/layers.h"
#include "model/llama_model.h"
#include "model/model_loader.h"
#include "model/weight_reader.h"
#include "quant/packed_matrix.h"
#include "support/half_copy.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace attn {
namespace {

using test::HalfCase;
using test::LoadedWeights;
using test::roundedFolder;

Tensor randomTensor(Shape shape, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    Tensor t(std::move(shape));
    for (float& v : t.storage())
        v = normal(rng);
    return t;
}

/// An f16 matrix [rows, cols] of random values: its bytes and its exact float32 widening.
struct HalfMatrix {
    std::vector<uint16_t> bits;
    Tensor widened;
};

HalfMatrix randomHalfMatrix(int64_t rows, int64_t cols, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> mantissa(0, 0x3ff), exponent(10, 17), sign(0, 1); // |v| in [2^-5, 2^3)
    HalfMatrix m { std::vector<uint16_t>(static_cast<size_t>(rows * cols)), Tensor({ rows, cols }) };
    for (size_t i = 0; i < m.bits.size(); ++i) {
        m.bits[i] = static_cast<uint16_t>((sign(rng) << 15) | (exponent(rng) << 10) | mantissa(rng));
        m.widened.data()[i] = halfToFloat(m.bits[i]);
    }
    return m;
}

double maxAbsDiff(const Tensor& a, const Tensor& b)
{
    EXPECT_EQ(a.shape(), b.shape());
    double m = 0;
    for (int64_t i = 0; i < a.numel(); ++i)
        m = std::max(m, static_cast<double>(std::fabs(a.data()[i] - b.data()[i])));
    return m;
}

TEST(QuantPacked, ProductOverSeveralRowBlocksEqualsTheDenseProduct)
{
    // 1000 rows of 64: row blocks of 256, the last one partial, spread over the worker threads.
    const HalfMatrix m = randomHalfMatrix(1000, 64, 7);
    const auto packed = std::make_shared<const PackedMatrix>(
        GgmlType::F16, 1000, 64, reinterpret_cast<const uint8_t*>(m.bits.data()), nullptr);
    const Tensor w = Tensor::fromPacked(packed);
    EXPECT_EQ(w.shape(), (Shape { 1000, 64 }));
    EXPECT_FALSE(w.empty());
    EXPECT_EQ(w.data(), nullptr); // no float32 copy
    const Tensor bias = randomTensor({ 1000 }, 3);
    for (const int64_t n : { 1, 5 }) {
        const Tensor x = randomTensor({ n, 64 }, static_cast<uint32_t>(n));
        // Sums of 64 products of magnitude < 8 * 4: float32 rounding of different summation orders stays < 1e-4.
        EXPECT_LE(maxAbsDiff(linear(x, w, &bias), linear(x, m.widened, &bias)), 1e-4) << n;
        EXPECT_LE(maxAbsDiff(linear(x, w, nullptr), linear(x, m.widened, nullptr)), 1e-4) << n;
    }
}

TEST(QuantPacked, PrefillNeverReadsScratchLeftByAnotherProduct)
{
    // A prefill widens its packed weight into a scratch buffer that is not cleared, a chunk of rows at a time (16 rows
    // here: 6 rows of x). A product whose weights are all NaN leaves its freed scratch full of NaN; the next product of
    // the same chunk size (which the allocator hands the same memory) must give the bits it gave before, finite,
    // with its last chunk partial (40 rows: 16 + 16 + 8).
    const HalfMatrix m = randomHalfMatrix(40, 64, 5);
    const PackedMatrix w(GgmlType::F16, 40, 64, reinterpret_cast<const uint8_t*>(m.bits.data()), nullptr);
    const std::vector<uint16_t> nanBits(48 * 64, 0x7e00);
    const PackedMatrix nans(GgmlType::F16, 48, 64, reinterpret_cast<const uint8_t*>(nanBits.data()), nullptr);
    const Tensor x = randomTensor({ 6, 64 }, 2);
    const Tensor fresh = packedLinear(x, w, nullptr);
    for (int round = 0; round < 3; ++round) {
        const Tensor poisoned = packedLinear(x, nans, nullptr);
        EXPECT_TRUE(std::isnan(poisoned.data()[0]));
        const Tensor again = packedLinear(x, w, nullptr);
        for (int64_t i = 0; i < fresh.numel(); ++i) {
            ASSERT_TRUE(std::isfinite(again.data()[i])) << "element " << i << ", round " << round;
            ASSERT_EQ(std::memcmp(&again.data()[i], &fresh.data()[i], sizeof(float)), 0)
                << "element " << i << ", round " << round;
        }
    }
    // And the product is the dense one's (fresh has not read stale memory either).
    EXPECT_LE(maxAbsDiff(fresh, linear(x, m.widened, nullptr)), 1e-4);
}

TEST(QuantPacked, RowOrderAndLookUpsAreExact)
{
    const HalfMatrix m = randomHalfMatrix(8, 32, 11);
    const std::vector<int64_t> order = unpermuteRopeRows(2, 4); // two heads of 4: rows 0 2 1 3 4 6 5 7
    EXPECT_EQ(order, (std::vector<int64_t> { 0, 2, 1, 3, 4, 6, 5, 7 }));
    const Tensor w = Tensor::fromPacked(std::make_shared<const PackedMatrix>(
        GgmlType::F16, 8, 32, reinterpret_cast<const uint8_t*>(m.bits.data()), nullptr, order));
    const std::vector<int64_t> ids { 1, 2, 7, 1 };
    const Tensor rows = gatherRows(w, ids, "token");
    for (size_t i = 0; i < ids.size(); ++i)
        for (int64_t c = 0; c < 32; ++c)
            EXPECT_EQ(rows.at({ static_cast<int64_t>(i), c }), m.widened.at({ order[static_cast<size_t>(ids[i])], c }));
    EXPECT_THROW(gatherRows(w, std::vector<int64_t>(1, 8), "token"), Error);
}

TEST(QuantPacked, GgufWeightsStayInPlaceInTheirStoredType)
{
    const auto file = std::make_shared<const GgufFile>(test::sharedPath("fixtures/gguf/kq256/kq256-Q4_K.gguf"));
    GgufWeights r(file);
    const Tensor embed = r.matrix("token_embd.weight", 64, 256);
    ASSERT_NE(embed.packed(), nullptr);
    EXPECT_EQ(embed.packed()->type(), GgmlType::Q4_K);
    EXPECT_EQ(embed.packed()->row(0), file->tensorData(*file->findTensor("token_embd.weight"))); // the mapping
    EXPECT_EQ(embed.packed()->bytes(), file->findTensor("token_embd.weight")->bytes);
    // Looked up rows are ggml's dequantization, bit for bit.
    const Tensor want = readNpy(test::sharedPath("fixtures/gguf/kq256/deq/kq256-Q4_K/token_embd.weight.npy"));
    const Tensor got = gatherRows(embed, { 0, 63 }, "token");
    for (int64_t c = 0; c < 256; ++c) {
        EXPECT_EQ(got.at({ 0, c }), want.at({ 0, c }));
        EXPECT_EQ(got.at({ 1, c }), want.at({ 63, c }));
    }
    EXPECT_THROW((void)r.matrix("token_embd.weight", 256, 64), Error); // the shape is checked
}

StepResult forwardOf(const std::shared_ptr<const DecoderModel>& model)
{
    KvCache cache = model->newCache();
    return model->forward(cache, { 1, 5, 9, 200, 17, 3, 88 }, {});
}

TEST(QuantPacked, Bf16SafetensorsStayHalfAndMatchTheirFloat32Widening)
{
    const std::string tmp = test::makeTempDir("bf16-llama");
    const std::string half = roundedFolder("llama", tmp + "/bf16", GgmlType::BF16, true);
    const std::string full = roundedFolder("llama", tmp + "/f32", GgmlType::BF16, false);
    WeightReader r(half + "/model.safetensors");
    const Tensor q = r.takeMatrix("model.layers.0.self_attn.q_proj.weight", { 32, 32 });
    ASSERT_NE(q.packed(), nullptr);
    EXPECT_EQ(q.packed()->type(), GgmlType::BF16);
    EXPECT_EQ(r.take("model.layers.0.input_layernorm.weight", { 32 }).packed(), nullptr); // vectors widen on load

    const StepResult a = forwardOf(std::dynamic_pointer_cast<const DecoderModel>(loadModel(half)));
    const StepResult b = forwardOf(std::dynamic_pointer_cast<const DecoderModel>(loadModel(full)));
    // Same weights; only the order of the float32 sums differs (row blocks against one product).
    EXPECT_LE(maxAbsDiff(a.logits, b.logits), 1e-5);
    for (size_t l = 0; l < a.attention.size(); ++l)
        EXPECT_LE(maxAbsDiff(a.attention[l], b.attention[l]), 1e-6);
}

LoadedWeights weightsOf(const LlamaWeights& w)
{
    LoadedWeights out;
    std::vector<const Tensor*>& m = out.matrices;
    m = { &w.embed, &w.positions, &w.projectIn, &w.projectOut, &w.lmHead };
    for (const LlamaLayerWeights& l : w.layers) {
        m.insert(m.end(), { &l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down, &l.router });
        for (const ExpertWeights& e : l.experts)
            m.insert(m.end(), { &e.gate, &e.up, &e.down });
        out.vectors.insert(out.vectors.end(),
            { &l.attnNorm.weight, &l.attnNorm.bias, &l.postAttnNorm.weight, &l.postAttnNorm.bias, &l.ffnNorm.weight,
                &l.ffnNorm.bias, &l.postFfnNorm.weight, &l.postFfnNorm.bias, &l.bq, &l.bk, &l.bv, &l.bo, &l.upBias,
                &l.downBias });
    }
    out.vectors.insert(out.vectors.end(), { &w.finalNorm.weight, &w.finalNorm.bias, &w.lmHeadBias });
    return out;
}

LoadedWeights weightsOf(const Gpt2Weights& w)
{
    LoadedWeights out { { &w.wte, &w.wpe }, { &w.lnfW, &w.lnfB } };
    for (const Gpt2Layer& l : w.layers) {
        out.matrices.insert(out.matrices.end(), { &l.attnW, &l.projW, &l.fcW, &l.fcProjW });
        out.vectors.insert(
            out.vectors.end(), { &l.ln1w, &l.ln1b, &l.attnB, &l.projB, &l.ln2w, &l.ln2b, &l.fcB, &l.fcProjB });
    }
    return out;
}

/// The weights of a loaded LlamaModel or Gpt2Model, without the tensors its family leaves empty.
LoadedWeights weightsOf(const std::shared_ptr<const Model>& model)
{
    LoadedWeights out;
    if (const auto* llama = dynamic_cast<const LlamaModel*>(model.get())) out = weightsOf(llama->weights());
    if (const auto* gpt2 = dynamic_cast<const Gpt2Model*>(model.get())) out = weightsOf(gpt2->weights());
    for (auto* list : { &out.matrices, &out.vectors })
        std::erase_if(*list, [](const Tensor* t) { return t->empty(); });
    return out;
}

class HalfFamily : public ::testing::TestWithParam<HalfCase> { };

/// Every HF decoder family loaded from an F16 or BF16 copy of its fixture keeps every weight matrix packed in the
/// stored type (the loaders once widened some silently: a merge dropped it, and results cannot show it), holds
/// about the file's bytes, and computes what the float32 widening of the same weights computes.
TEST_P(HalfFamily, LoadedModelKeepsEveryMatrixHalf)
{
    const HalfCase c = GetParam();
    const std::string tmp = test::makeTempDir(std::string("half-") + c.fixture);
    const std::string half = roundedFolder(c.fixture, tmp + "/half", c.type, true);
    const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(half));
    ASSERT_NE(model, nullptr);
    const LoadedWeights weights = weightsOf(model);
    ASSERT_GE(weights.matrices.size(), 2 + 4 * static_cast<size_t>(model->config().numLayers));
    test::expectKeptHalf(weights, c.type, half + "/model.safetensors");

    const std::string full = roundedFolder(c.fixture, tmp + "/f32", c.type, false);
    const StepResult a = forwardOf(model);
    const StepResult b = forwardOf(std::dynamic_pointer_cast<const DecoderModel>(loadModel(full)));
    EXPECT_LE(maxAbsDiff(a.logits, b.logits), 1e-4); // same weights, float32 sums in another order
    for (size_t l = 0; l < a.attention.size(); ++l)
        EXPECT_LE(maxAbsDiff(a.attention[l], b.attention[l]), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Families, HalfFamily,
    ::testing::Values(HalfCase { "llama", GgmlType::BF16 }, HalfCase { "llama", GgmlType::F16 },
        HalfCase { "qwen2", GgmlType::BF16 }, HalfCase { "mistral", GgmlType::F16 },
        HalfCase { "gemma", GgmlType::BF16 }, HalfCase { "gemma2", GgmlType::BF16 }, HalfCase { "phi", GgmlType::F16 },
        HalfCase { "phi3", GgmlType::BF16 }, HalfCase { "gpt_neox", GgmlType::F16 },
        HalfCase { "olmo", GgmlType::BF16 }, HalfCase { "starcoder2", GgmlType::F16 },
        HalfCase { "mixtral", GgmlType::BF16 }, HalfCase { "opt", GgmlType::F16 }, HalfCase { "gpt2", GgmlType::F16 },
        HalfCase { "gpt2", GgmlType::BF16 }),
    [](const auto& info) { return test::halfCaseName(info.param); });

} // namespace
} // namespace attn
