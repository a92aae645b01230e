// SPDX-License-Identifier: MIT
// The decode step's fused dot products with Q8_0 / Q4_K / BF16 / F16 rows (quant/row_dot.h) against a float64 dot
// product over the same rows as dequantizeRow widens them, within the float32 summation bound the header states; and
// the packed product of a decode step (which takes them) against the prefill's widen-then-multiply path.
#include "backend/cpu_packed_matmul.h"
#include "core/error.h"
#include "core/half.h"
#include "quant/dequantize.h"
#include "quant/ggml_blocks.h"
#include "quant/packed_matrix.h"
#include "quant/row_dot.h"
#include "support/half_copy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace attn {
namespace {

/// `rows` rows of `cols` random quants of `type` (Q8_0 or Q4_K) with scales drawn over a few binades, or of normal
/// bfloat16 / half values.
std::vector<uint8_t> randomRows(GgmlType type, int64_t rows, int64_t cols, uint32_t seed)
{
    const GgmlTypeTraits& t = ggmlTypeTraits(type);
    std::vector<uint8_t> bytes(static_cast<size_t>(rows * cols / t.blockSize * t.blockBytes));
    std::mt19937 rng(seed);
    if (type == GgmlType::BF16 || type == GgmlType::F16) {
        std::normal_distribution<float> normal;
        for (size_t i = 0; i < bytes.size(); i += 2) {
            const uint16_t bits = test::halfBits(normal(rng), type);
            std::memcpy(&bytes[i], &bits, 2);
        }
        return bytes;
    }
    std::uniform_int_distribution<int> byte(0, 255), mantissa(0, 0x3ff), exponent(8, 12);
    for (size_t b = 0; b < bytes.size(); b += static_cast<size_t>(t.blockBytes)) {
        for (int64_t i = 0; i < t.blockBytes; ++i)
            bytes[b + static_cast<size_t>(i)] = static_cast<uint8_t>(byte(rng));
        for (int s = 0; s < (type == GgmlType::Q4_K ? 2 : 1); ++s) { // d (and dmin): 2^-7 .. 2^-3
            const auto h = static_cast<uint16_t>((exponent(rng) << 10) | mantissa(rng));
            std::memcpy(&bytes[b + 2 * static_cast<size_t>(s)], &h, 2);
        }
    }
    return bytes;
}

/// |min| of each element's group where the row is Q4_K (row_dot.h's bound counts it twice), 0 for the other types.
std::vector<double> groupMinimums(GgmlType type, const uint8_t* row, int64_t cols)
{
    std::vector<double> mins(static_cast<size_t>(cols), 0.0);
    if (type != GgmlType::Q4_K) return mins;
    for (int64_t b = 0; b < cols / 256; ++b, row += 144)
        for (int g = 0; g < 8; ++g) {
            const float m = ggml_blocks::groupScale(row + 4, g, ggml_blocks::half(row), ggml_blocks::half(row + 2)).min;
            for (int64_t i = 0; i < 32; ++i)
                mins[static_cast<size_t>(256 * b + 32 * g + i)] = std::fabs(static_cast<double>(m));
        }
    return mins;
}

std::vector<float> randomActivations(int64_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x)
        v = normal(rng);
    return x;
}

struct RowDotCase {
    GgmlType type;
    int64_t cols;
};

class RowDots : public testing::TestWithParam<RowDotCase> { };

TEST_P(RowDots, EqualTheDequantizedDotWithinTheFloat32SummationBound)
{
    const auto [type, cols] = GetParam();
    ASSERT_TRUE(hasRowDots(type)) << "this CPU has AVX2 and FMA (every x86-64 CPU the tests run on)";
    constexpr int64_t rows = 16;
    const std::vector<uint8_t> w = randomRows(type, rows, cols, 5);
    const std::vector<float> x = randomActivations(kRowDotsMaxRows * cols, 9);
    const uint64_t rowBytes = w.size() / rows;
    std::vector<float> wide(static_cast<size_t>(cols));
    double worst = 0;
    for (int64_t r = 0; r < rows; ++r) {
        const uint8_t* row = w.data() + r * rowBytes;
        dequantizeRow(type, row, wide.data(), cols);
        const std::vector<double> mins = groupMinimums(type, row, cols);
        float all[kRowDotsMaxRows];
        rowDots(RowDotInput(type, x.data(), cols, kRowDotsMaxRows), row, all, 1);
        for (int64_t n = 1; n <= kRowDotsMaxRows; ++n) {
            float some[kRowDotsMaxRows];
            rowDots(RowDotInput(type, x.data(), cols, n), row, some, 1);
            for (int64_t j = 0; j < n; ++j) {
                // Each activation row's sum runs the same instructions however many rows share the weight loads.
                EXPECT_EQ(some[j], all[j]) << "row " << r << ", " << n << " activation rows";
                double exact = 0, magnitude = 0;
                for (int64_t i = 0; i < cols; ++i) {
                    const double p = static_cast<double>(wide[static_cast<size_t>(i)])
                        * static_cast<double>(x[static_cast<size_t>(j * cols + i)]);
                    exact += p;
                    magnitude += (std::fabs(static_cast<double>(wide[static_cast<size_t>(i)]))
                                     + 2 * mins[static_cast<size_t>(i)])
                        * std::fabs(static_cast<double>(x[static_cast<size_t>(j * cols + i)]));
                }
                const double bound = static_cast<double>(cols / 16 + 20) * std::ldexp(1.0, -24) * magnitude;
                const double error = std::fabs(static_cast<double>(some[j]) - exact);
                EXPECT_LE(error, bound) << "row " << r << ", activation row " << j;
                worst = std::max(worst, error / bound);
            }
        }
    }
    std::printf(
        "%s x %lld: worst error %.3f of the bound\n", ggmlTypeTraits(type).name, static_cast<long long>(cols), worst);
}

INSTANTIATE_TEST_SUITE_P(Types, RowDots,
    testing::Values(RowDotCase { GgmlType::Q8_0, 32 }, RowDotCase { GgmlType::Q8_0, 2048 },
        RowDotCase { GgmlType::Q8_0, 8192 }, RowDotCase { GgmlType::Q4_K, 256 }, RowDotCase { GgmlType::Q4_K, 2048 },
        RowDotCase { GgmlType::Q4_K, 8192 }, RowDotCase { GgmlType::BF16, 7 }, RowDotCase { GgmlType::BF16, 2048 },
        RowDotCase { GgmlType::BF16, 8203 }, RowDotCase { GgmlType::F16, 7 }, RowDotCase { GgmlType::F16, 2048 },
        RowDotCase { GgmlType::F16, 8203 }),
    [](const testing::TestParamInfo<RowDotCase>& info) {
        return std::string(ggmlTypeTraits(info.param.type).name) + "_" + std::to_string(info.param.cols);
    });

TEST(RowDots, OtherTypesAndRowCountsAreRefused)
{
    const std::vector<float> x(8 * 256);
    EXPECT_FALSE(hasRowDots(GgmlType::Q6_K));
    EXPECT_THROW(RowDotInput(GgmlType::Q6_K, x.data(), 256, 1), Error);
    EXPECT_THROW(RowDotInput(GgmlType::Q8_0, x.data(), 32, kRowDotsMaxRows + 1), Error);
    EXPECT_THROW(RowDotInput(GgmlType::Q8_0, x.data(), 32, 0), Error);
}

TEST(RowDots, DecodeStepProductMatchesThePrefillPath)
{
    // A decode step (3 activation rows: the fused dots) and a prefill (6 rows: widen a block, then Eigen) over the
    // same Q4_K weight [300, 512], with a bias: each row of the first equals the same row of the second within the
    // summation bound of 512 products and the bias (both float32, in different orders), the minimums counted as
    // row_dot.h counts them.
    constexpr int64_t out = 300, in = 512;
    const std::vector<uint8_t> bytes = randomRows(GgmlType::Q4_K, out, in, 21);
    const PackedMatrix w(GgmlType::Q4_K, out, in, bytes.data(), nullptr);
    const std::vector<float> xs = randomActivations(6 * in, 4);
    Tensor bias({ out }, randomActivations(out, 8));
    const Tensor step = packedLinear(Tensor({ 3, in }, std::vector<float>(xs.begin(), xs.begin() + 3 * in)), w, &bias);
    const Tensor prefill = packedLinear(Tensor({ 6, in }, xs), w, &bias);
    std::vector<float> wide(static_cast<size_t>(out * in));
    w.dequantizeRows(0, out, wide.data());
    for (int64_t j = 0; j < 3; ++j)
        for (int64_t o = 0; o < out; ++o) {
            const std::vector<double> mins = groupMinimums(GgmlType::Q4_K, w.row(o), in);
            double magnitude = std::fabs(static_cast<double>(bias.data()[o]));
            for (int64_t i = 0; i < in; ++i)
                magnitude += (std::fabs(static_cast<double>(wide[static_cast<size_t>(o * in + i)]))
                                 + 2 * mins[static_cast<size_t>(i)])
                    * std::fabs(static_cast<double>(xs[static_cast<size_t>(j * in + i)]));
            const double bound = 2.0 * static_cast<double>(in + 1) * std::ldexp(1.0, -24) * magnitude;
            EXPECT_NEAR(step.data()[j * out + o], prefill.data()[j * out + o], bound) << j << ", " << o;
        }
}

} // namespace
} // namespace attn
