// SPDX-License-Identifier: MIT
// Packed weights (kept in their file's block format): products and look-ups against the same weights widened to
// float32, and GGUF weights staying in place in the file's mapping.
#include "core/error.h"
#include "core/half.h"
#include "core/npy.h"
#include "io/gguf.h"
#include "model/gguf_weights.h"
#include "model/layers.h"
#include "quant/packed_matrix.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace attn {
namespace {

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

} // namespace
} // namespace attn
