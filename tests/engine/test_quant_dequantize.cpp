// SPDX-License-Identifier: MIT
// Dequantization bit for bit against ggml's own to_float: every tensor of every quantized fixture copy
// (../shared/fixtures/gguf/*/deq/, written by ggml_get_type_traits(t)->to_float).
#include "core/npy.h"
#include "io/gguf.h"
#include "quant/dequantize.h"
#include "quant/dequantize_avx2.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <set>

namespace attn {
namespace {

uint32_t bitsOf(float f)
{
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

TEST(QuantDequantize, EveryTensorOfEveryQuantizedCopyEqualsGgmlBitForBit)
{
    std::ifstream in(test::sharedPath("fixtures/gguf/manifest.json"));
    const auto manifest = nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
    std::set<std::string> typesSeen;
    int tensors = 0;
    for (const auto& [model, entry] : manifest["models"].items()) {
        for (const auto& f : entry["files"]) {
            if (!f["deq_dir"].is_string()) continue; // all-F32 files: the stored data is the reference
            const GgufFile g(test::sharedPath("fixtures/gguf/" + f["path"].get<std::string>()));
            const std::string deq = test::sharedPath("fixtures/gguf/" + f["deq_dir"].get<std::string>());
            for (const GgufTensorInfo& t : g.tensors()) {
                SCOPED_TRACE(g.path() + " " + t.name);
                const Tensor want = readNpy(deq + "/" + t.name + ".npy");
                ASSERT_EQ(want.shape(), t.torchShape());
                std::vector<float> got(static_cast<size_t>(t.numel()));
                const uint64_t rowBytes = t.bytes / static_cast<uint64_t>(t.rows());
                for (int64_t r = 0; r < t.rows(); ++r)
                    dequantizeRow(
                        t.type, g.tensorData(t) + r * rowBytes, got.data() + r * t.rowLength(), t.rowLength());
                int64_t differing = 0, first = -1;
                for (int64_t i = 0; i < t.numel(); ++i)
                    if (bitsOf(got[static_cast<size_t>(i)]) != bitsOf(want.data()[i]) && differing++ == 0) first = i;
                EXPECT_EQ(differing, 0) << "first at " << first << ": " << got[static_cast<size_t>(first)] << " vs "
                                        << want.data()[first];
                typesSeen.insert(ggmlTypeTraits(t.type).name);
                ++tensors;
            }
        }
    }
    // Every type the fixtures store (README): the 32-blocks, the K-quants, F16 fallbacks and F32 norms.
    EXPECT_EQ(typesSeen,
        (std::set<std::string> {
            "f32", "f16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q2_K", "q3_K", "q4_K", "q5_K", "q6_K" }));
    EXPECT_GT(tensors, 300);
}

TEST(QuantDequantize, TheAvx2RowsEqualTheScalarCodeBitForBitOnRandomBlocks)
{
    // Beyond the fixtures' blocks (ggml's quantizer writes only some scale and quant patterns): random bytes with
    // random finite half scales, signs included, at every block type's scale offsets (ggml-quants.h layouts).
    const std::pair<GgmlType, std::vector<int>> kScales[] = { { GgmlType::Q8_0, { 0 } }, { GgmlType::Q4_0, { 0 } },
        { GgmlType::Q4_1, { 0, 2 } }, { GgmlType::Q5_0, { 0 } }, { GgmlType::Q5_1, { 0, 2 } },
        { GgmlType::Q2_K, { 80, 82 } }, { GgmlType::Q3_K, { 108 } }, { GgmlType::Q4_K, { 0, 2 } },
        { GgmlType::Q5_K, { 0, 2 } }, { GgmlType::Q6_K, { 208 } } };
    std::mt19937 rng(16);
    std::uniform_int_distribution<int> byte(0, 255), exponent(1, 29), mantissa(0, 0x3ff), sign(0, 1);
    for (const auto& [type, scales] : kScales) {
        SCOPED_TRACE(ggmlTypeTraits(type).name);
        const GgmlTypeTraits& t = ggmlTypeTraits(type);
        constexpr int64_t kBlocks = 64;
        std::vector<uint8_t> bytes(static_cast<size_t>(kBlocks * t.blockBytes));
        for (auto& b : bytes)
            b = static_cast<uint8_t>(byte(rng));
        for (int64_t blk = 0; blk < kBlocks; ++blk)
            for (const int at : scales) {
                const auto h = static_cast<uint16_t>((sign(rng) << 15) | (exponent(rng) << 10) | mantissa(rng));
                std::memcpy(&bytes[static_cast<size_t>(blk * t.blockBytes + at)], &h, 2);
            }
        const int64_t n = kBlocks * t.blockSize;
        std::vector<float> fast(static_cast<size_t>(n)), portable(static_cast<size_t>(n));
        dequantizeRow(type, bytes.data(), fast.data(), n);
        dequantizeRowPortable(type, bytes.data(), portable.data(), n);
        int64_t differing = 0;
        for (int64_t i = 0; i < n; ++i)
            differing += bitsOf(fast[static_cast<size_t>(i)]) != bitsOf(portable[static_cast<size_t>(i)]);
        EXPECT_EQ(differing, 0);
    }
}

TEST(QuantDequantize, Bf16WidensEightAtATimeWithTheScalarBitsFromAnyByteOffset)
{
    // A prefill widens every bf16 weight once (backend/cpu_packed_matmul.cpp): on AVX2 CPUs by vector shifts, at
    // any byte offset of the mapping, with a scalar tail; every 16-bit pattern (NaNs, infinities, subnormals) stays.
    // Without AVX2 the dispatch must take the portable row instead (and the comparison below then holds trivially).
    const bool avx2 = __builtin_cpu_supports("avx2");
    ASSERT_EQ(avx2DequantizeRow(GgmlType::BF16) != nullptr, avx2) << "AVX2 on this CPU: " << avx2;
    std::vector<uint8_t> bytes(2 * 65536 + 1 + 2 * 7);
    for (size_t i = 0; i + 1 < bytes.size(); i += 2) { // all 65,536 words, then 7 more for the tail
        const auto word = static_cast<uint16_t>(i / 2);
        std::memcpy(&bytes[i + 1], &word, 2);
    }
    const int64_t n = 65536 + 7;
    std::vector<float> fast(static_cast<size_t>(n)), portable(static_cast<size_t>(n));
    dequantizeRow(GgmlType::BF16, bytes.data() + 1, fast.data(), n);
    dequantizeRowPortable(GgmlType::BF16, bytes.data() + 1, portable.data(), n);
    int64_t differing = 0;
    for (int64_t i = 0; i < n; ++i)
        differing += bitsOf(fast[static_cast<size_t>(i)]) != bitsOf(portable[static_cast<size_t>(i)]);
    EXPECT_EQ(differing, 0);
    EXPECT_EQ(bitsOf(fast[0x3f80]), 0x3f800000u);
    EXPECT_EQ(bitsOf(fast[65536 + 6]), 6u << 16);
}

TEST(QuantDequantize, Bf16IsTheUpperHalfOfFloat32)
{
    // No fixture stores BF16 (ggml's llama-quantize writes none); its definition is exact: bits << 16.
    const uint16_t raw[4] = { 0x3f80, 0xc040, 0x0001, 0x7f80 };
    float out[4];
    dequantizeRow(GgmlType::BF16, reinterpret_cast<const uint8_t*>(raw), out, 4);
    EXPECT_EQ(bitsOf(out[0]), 0x3f800000u); // 1
    EXPECT_EQ(bitsOf(out[1]), 0xc0400000u); // -3
    EXPECT_EQ(bitsOf(out[2]), 0x00010000u); // a float32 subnormal
    EXPECT_EQ(bitsOf(out[3]), 0x7f800000u); // +inf
}

} // namespace
} // namespace attn
