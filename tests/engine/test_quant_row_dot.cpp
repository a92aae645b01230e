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
#include <cstdlib>
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

const auto kRowDotCases = testing::Values(RowDotCase { GgmlType::Q8_0, 32 }, RowDotCase { GgmlType::Q8_0, 2048 },
    RowDotCase { GgmlType::Q8_0, 8192 }, RowDotCase { GgmlType::Q8_0, 96 }, RowDotCase { GgmlType::Q4_K, 256 },
    RowDotCase { GgmlType::Q4_K, 2048 }, RowDotCase { GgmlType::Q4_K, 8192 }, RowDotCase { GgmlType::BF16, 7 },
    RowDotCase { GgmlType::BF16, 2048 }, RowDotCase { GgmlType::BF16, 8203 }, RowDotCase { GgmlType::BF16, 8219 },
    RowDotCase { GgmlType::F16, 7 }, RowDotCase { GgmlType::F16, 2048 }, RowDotCase { GgmlType::F16, 8203 },
    RowDotCase { GgmlType::F16, 8219 });

std::string rowDotCaseName(const testing::TestParamInfo<RowDotCase>& info)
{
    return std::string(ggmlTypeTraits(info.param.type).name) + "_" + std::to_string(info.param.cols);
}

INSTANTIATE_TEST_SUITE_P(Types, RowDots, kRowDotCases, rowDotCaseName);

/// row_dot_kernels.h's order of the sums for one activation row, transcribed lane by lane in scalar float32 (each
/// "fma" one std::fma, every other step one rounded operation): the bits every instruction set must give.
float documentedOrderDot(GgmlType type, const uint8_t* row, const float* x, int64_t cols, const float* groupSums)
{
    float acc[16] = {};
    int64_t done = cols; // elements the 16 lanes cover
    if (type == GgmlType::Q8_0) {
        const auto blockSum = [&](const uint8_t* b, const float* xb, int l) {
            const auto q = [&](int i) { return static_cast<float>(static_cast<int8_t>(b[2 + i])); };
            return std::fma(q(16 + l), xb[16 + l], q(l) * xb[l]);
        };
        const int64_t blocks = cols / 32;
        int64_t k = 0;
        for (; k + 2 <= blocks; k += 2)
            for (int l = 0; l < 16; ++l) {
                const uint8_t* b = row + 34 * k;
                const float d0 = ggml_blocks::half(b), d1 = ggml_blocks::half(b + 34);
                const float s0 = blockSum(b, x + 32 * k, l), s1 = blockSum(b + 34, x + 32 * k + 32, l);
                acc[l] = acc[l] + std::fma(d1, s1, d0 * s0);
            }
        if (k < blocks)
            for (int l = 0; l < 16; ++l)
                acc[l] = acc[l] + ggml_blocks::half(row + 34 * k) * blockSum(row + 34 * k, x + 32 * k, l);
    } else if (type == GgmlType::Q4_K) {
        for (int64_t k = 0; k < cols / 256; ++k) {
            const uint8_t* b = row + 144 * k;
            const float* xb = x + 256 * k;
            for (int l = 0; l < 16; ++l) {
                float even = 0, odd = 0;
                for (int g = 0; g < 8; ++g) {
                    const uint8_t* q = b + 16 + 32 * (g / 2);
                    const auto w = [&](int i) { return static_cast<float>(g % 2 ? q[i] >> 4 : q[i] & 0xF); };
                    const float s = std::fma(w(16 + l), xb[32 * g + 16 + l], w(l) * xb[32 * g + l]);
                    const float scale
                        = ggml_blocks::groupScale(b + 4, g, ggml_blocks::half(b), ggml_blocks::half(b + 2)).scale;
                    float& sum = g % 2 ? odd : even;
                    sum = g < 2 ? scale * s : std::fma(scale, s, sum);
                }
                float u = even + odd;
                if (l < 8) {
                    const float min
                        = ggml_blocks::groupScale(b + 4, l, ggml_blocks::half(b), ggml_blocks::half(b + 2)).min;
                    u = std::fma(-min, groupSums[8 * k + l], u);
                }
                acc[l] = acc[l] + u;
            }
        }
    } else {
        std::vector<float> w(static_cast<size_t>(cols));
        dequantizeRow(type, row, w.data(), cols); // the exact widening
        int64_t at = 0;
        for (; at + 32 <= cols; at += 32)
            for (int l = 0; l < 16; ++l)
                acc[l] = acc[l]
                    + std::fma(w[static_cast<size_t>(at + 16 + l)], x[at + 16 + l],
                        w[static_cast<size_t>(at + l)] * x[at + l]);
        if (at + 16 <= cols) {
            for (int l = 0; l < 16; ++l)
                acc[l] = std::fma(w[static_cast<size_t>(at + l)], x[at + l], acc[l]);
            at += 16;
        }
        done = at;
        float v[8];
        for (int l = 0; l < 8; ++l)
            v[l] = acc[l] + acc[l + 8];
        float total = ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
        for (int64_t i = done; i < cols; ++i)
            total = std::fma(w[static_cast<size_t>(i)], x[i], total);
        return total;
    }
    float v[8];
    for (int l = 0; l < 8; ++l)
        v[l] = acc[l] + acc[l + 8];
    return ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
}

uint32_t bitsOf(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

class RowDotIsas : public testing::TestWithParam<RowDotCase> { };

TEST_P(RowDotIsas, EveryInstructionSetGivesTheBitsOfTheDocumentedOrder)
{
    // AVX2 (8 lanes, two passes) and AVX-512 (16 lanes, one pass) against the scalar transcription, bit for bit, for
    // 1 .. kRowDotsMaxRows activation rows: a decode gives the same numbers on every x86-64 CPU the engine runs on.
    const auto [type, cols] = GetParam();
    ASSERT_TRUE(hasRowDotIsa(RowDotIsa::Avx2)) << "this CPU has AVX2, FMA and F16C (every x86-64 CPU the tests run on)";
    std::vector<RowDotIsa> isas { RowDotIsa::Avx2, RowDotIsa::Widest };
    if (hasRowDotIsa(RowDotIsa::Avx512))
        isas.push_back(RowDotIsa::Avx512);
    else
        std::printf("this CPU has no AVX-512F: its kernels are checked on CPUs that have it\n");
    constexpr int64_t rows = 8;
    const std::vector<uint8_t> w = randomRows(type, rows, cols, 13);
    const std::vector<float> x = randomActivations(kRowDotsMaxRows * cols, 17);
    const uint64_t rowBytes = w.size() / rows;
    for (int64_t n = 1; n <= kRowDotsMaxRows; ++n) {
        const RowDotInput sums(type, x.data(), cols, n); // for the group sums the Q4_K order takes
        for (int64_t r = 0; r < rows; ++r) {
            const uint8_t* row = w.data() + r * rowBytes;
            for (const RowDotIsa isa : isas) {
                float out[kRowDotsMaxRows];
                rowDots(RowDotInput(type, x.data(), cols, n, isa), row, out, 1);
                for (int64_t j = 0; j < n; ++j) {
                    const float expected
                        = documentedOrderDot(type, row, x.data() + j * cols, cols, sums.groupSums() + j * (cols / 32));
                    EXPECT_EQ(bitsOf(out[j]), bitsOf(expected))
                        << "instruction set " << static_cast<int>(isa) << ", row " << r << ", " << n
                        << " activation rows, row " << j << ": " << out[j] << " against " << expected;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Types, RowDotIsas, kRowDotCases, rowDotCaseName);

TEST(RowDots, OtherTypesAndRowCountsAreRefused)
{
    const std::vector<float> x(8 * 256);
    EXPECT_FALSE(hasRowDots(GgmlType::Q6_K));
    EXPECT_THROW(RowDotInput(GgmlType::Q6_K, x.data(), 256, 1), Error);
    EXPECT_THROW(RowDotInput(GgmlType::Q8_0, x.data(), 32, kRowDotsMaxRows + 1), Error);
    EXPECT_THROW(RowDotInput(GgmlType::Q8_0, x.data(), 32, 0), Error);
    if (!hasRowDotIsa(RowDotIsa::Avx512)) {
        EXPECT_THROW(RowDotInput(GgmlType::Q8_0, x.data(), 32, 1, RowDotIsa::Avx512), Error);
    }
}

TEST(RowDots, TheMaxIsaVariableCapsTheKernelsAtAvx2)
{
    EXPECT_EQ(rowDotIsaCap(nullptr), RowDotIsa::Widest);
    EXPECT_EQ(rowDotIsaCap(""), RowDotIsa::Widest);
    EXPECT_EQ(rowDotIsaCap("avx2"), RowDotIsa::Avx2);
    EXPECT_EQ(rowDotIsaCap("avx512"), RowDotIsa::Avx512);
    EXPECT_THROW(rowDotIsaCap("AVX2"), Error); // a misspelling must not quietly leave the wide path on
    EXPECT_THROW(rowDotIsaCap("sse2"), Error);
    // This process as it was started: capped (ctest's engine_quant_avx2 run), the widest kernel is the AVX2 one
    // and AVX-512 is refused; otherwise the widest is AVX-512 where the CPU has it. x holds every row the
    // widest input reads (Q4_K sums each row's groups when the input is built).
    const std::vector<float> x(static_cast<size_t>(256 * kRowDotsMaxRows), 1.0f);
    const bool capped = rowDotIsaCap(std::getenv(kMaxIsaVariable)) == RowDotIsa::Avx2;
    const bool wide = !capped && __builtin_cpu_supports("avx512f");
    EXPECT_EQ(hasRowDotIsa(RowDotIsa::Avx512), wide);
    for (const GgmlType type : { GgmlType::Q8_0, GgmlType::Q4_K, GgmlType::BF16, GgmlType::F16 })
        for (int64_t n = 1; n <= kRowDotsMaxRows; ++n)
            EXPECT_EQ(RowDotInput(type, x.data(), 256, n).kernel(),
                wide ? row_dot::avx512Dots(type, n) : row_dot::avx2Dots(type, n))
                << ggmlTypeTraits(type).name << " x" << n << (capped ? " capped at AVX2" : "");
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
