// SPDX-License-Identifier: MIT
// The safetensors reader against well-formed and crafted malformed files: each defect gets its own message.
#include "core/error.h"
#include "io/safetensors.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

namespace attn {
namespace {

std::string writeFile(const std::string& dir, const std::string& name, const std::string& bytes)
{
    const std::string path = dir + "/" + name;
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
}

/// A safetensors file from a header JSON and `dataBytes` bytes of data (float i at offset 4i = i).
std::string makeSafetensors(const std::string& header, size_t dataBytes, uint64_t claimedLen = UINT64_MAX)
{
    std::string out(8, '\0');
    const uint64_t len = claimedLen == UINT64_MAX ? header.size() : claimedLen;
    for (int i = 0; i < 8; ++i)
        out[static_cast<size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xff);
    out += header;
    for (size_t i = 0; i < dataBytes / 4; ++i) {
        const float f = static_cast<float>(i);
        out.append(reinterpret_cast<const char*>(&f), 4);
    }
    out.append(dataBytes % 4, '\0');
    return out;
}

std::string errorOf(const std::string& path)
{
    try {
        SafetensorsStore::open(path);
    } catch (const Error& e) {
        return e.what();
    }
    return "<no error>";
}

class SafetensorsTest : public ::testing::Test {
protected:
    std::string dir = test::makeTempDir("st");
    std::string bad(const std::string& bytes) { return errorOf(writeFile(dir, "bad.safetensors", bytes)); }
};

TEST_F(SafetensorsTest, ReadsValidFileWithMetadata)
{
    const auto path = writeFile(dir, "ok.safetensors",
        makeSafetensors(R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
                        R"("b":{"dtype":"F32","shape":[2],"data_offsets":[24,32]}})",
            32));
    const auto store = SafetensorsStore::open(path);
    EXPECT_EQ(store->size(), 2u);
    EXPECT_EQ(store->metadata().at("format"), "pt");
    const Tensor a = store->load("a", { 2, 3 });
    EXPECT_EQ(a.at({ 1, 2 }), 5.0f);
    EXPECT_EQ(store->load("b").at({ 1 }), 7.0f);
}

TEST_F(SafetensorsTest, ConvertsF16AndBF16Exactly)
{
    // f16: 1.0 = 0x3c00, -2.0 = 0xc000, smallest subnormal 0x0001 = 2^-24, 65504 = 0x7bff
    // bf16: 1.0 = 0x3f80, -0.5 = 0xbf00
    const uint16_t h[] = { 0x3c00, 0xc000, 0x0001, 0x7bff };
    const uint16_t b[] = { 0x3f80, 0xbf00 };
    std::string header = R"({"h":{"dtype":"F16","shape":[4],"data_offsets":[0,8]},"b":{"dtype":"BF16","shape":[2],"data_offsets":[8,12]}})";
    std::string bytes = makeSafetensors(header, 0);
    bytes.append(reinterpret_cast<const char*>(h), 8);
    bytes.append(reinterpret_cast<const char*>(b), 4);
    const auto store = SafetensorsStore::open(writeFile(dir, "half.safetensors", bytes));
    const Tensor th = store->load("h");
    EXPECT_EQ(th.at({ 0 }), 1.0f);
    EXPECT_EQ(th.at({ 1 }), -2.0f);
    EXPECT_EQ(th.at({ 2 }), std::ldexp(1.0f, -24));
    EXPECT_EQ(th.at({ 3 }), 65504.0f);
    const Tensor tb = store->load("b");
    EXPECT_EQ(tb.at({ 0 }), 1.0f);
    EXPECT_EQ(tb.at({ 1 }), -0.5f);
}

TEST_F(SafetensorsTest, FileShorterThanLengthPrefix)
{
    EXPECT_NE(bad("abc").find("too small for a safetensors header"), std::string::npos);
}

TEST_F(SafetensorsTest, HeaderLengthPastEndOfFile)
{
    EXPECT_NE(bad(makeSafetensors("{}", 0, 5000)).find("runs past the end of the file"), std::string::npos);
}

TEST_F(SafetensorsTest, HeaderLengthOverCap)
{
    EXPECT_NE(bad(makeSafetensors("{}", 0, 1ull << 40)).find("exceeds the 100 MiB cap"), std::string::npos);
}

TEST_F(SafetensorsTest, MalformedJson)
{
    EXPECT_NE(bad(makeSafetensors(R"({"a":{"dtype":"F32",)", 0)).find("malformed JSON header"), std::string::npos);
}

TEST_F(SafetensorsTest, HeaderNotAnObject)
{
    EXPECT_NE(bad(makeSafetensors("[1,2]", 0)).find("header is not a JSON object"), std::string::npos);
}

TEST_F(SafetensorsTest, UnknownDtype)
{
    const auto msg = bad(makeSafetensors(R"({"w":{"dtype":"F17","shape":[1],"data_offsets":[0,4]}})", 4));
    EXPECT_NE(msg.find("tensor 'w': unknown dtype \"F17\""), std::string::npos) << msg;
}

TEST_F(SafetensorsTest, MissingField)
{
    const auto msg = bad(makeSafetensors(R"({"w":{"dtype":"F32","shape":[1]}})", 4));
    EXPECT_NE(msg.find("tensor 'w': entry needs dtype, shape and data_offsets"), std::string::npos) << msg;
}

TEST_F(SafetensorsTest, NegativeDimension)
{
    const auto msg = bad(makeSafetensors(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4));
    EXPECT_NE(msg.find("non-integer or negative dimension"), std::string::npos) << msg;
}

TEST_F(SafetensorsTest, ShapeDisagreesWithSpan)
{
    const auto msg = bad(makeSafetensors(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8));
    EXPECT_NE(msg.find("tensor 'w': shape [3] x F32 needs 12 bytes but data_offsets span 8"), std::string::npos) << msg;
}

TEST_F(SafetensorsTest, OffsetsPastDataSection)
{
    const auto msg = bad(makeSafetensors(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8));
    EXPECT_NE(msg.find("run past the data section (8 bytes); the file may be truncated"), std::string::npos) << msg;
}

TEST_F(SafetensorsTest, OffsetsReversed)
{
    const auto msg = bad(makeSafetensors(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,4]}})", 8));
    EXPECT_NE(msg.find("data_offsets end before they begin"), std::string::npos) << msg;
}

TEST_F(SafetensorsTest, OverlappingTensors)
{
    const auto msg = bad(makeSafetensors(
        R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12));
    EXPECT_NE(msg.find("tensor 'b' overlaps tensor 'a'"), std::string::npos) << msg;
}

TEST_F(SafetensorsTest, OffsetsNotIntegers)
{
    const auto msg = bad(makeSafetensors(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,"4"]}})", 4));
    EXPECT_NE(msg.find("data_offsets must be two non-negative integers"), std::string::npos) << msg;
}

TEST_F(SafetensorsTest, MetadataNotStrings)
{
    const auto msg = bad(makeSafetensors(R"({"__metadata__":{"n":3}})", 0));
    EXPECT_NE(msg.find("__metadata__ value for 'n' is not a string"), std::string::npos) << msg;
}

TEST_F(SafetensorsTest, ErrorNamesTheFile)
{
    EXPECT_NE(bad("abc").find("bad.safetensors"), std::string::npos);
}

TEST_F(SafetensorsTest, NonFloatTensorRefusedOnLoad)
{
    const auto path = writeFile(dir, "ints.safetensors", makeSafetensors(R"({"i":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}})", 8));
    const auto store = SafetensorsStore::open(path);
    try {
        store->load("i");
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("tensor 'i' has dtype I32, not a float type"), std::string::npos);
    }
}

TEST_F(SafetensorsTest, WrongShapeOnLoadNamesTensor)
{
    const auto path = writeFile(dir, "w.safetensors", makeSafetensors(R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", 16));
    const auto store = SafetensorsStore::open(path);
    try {
        store->load("w", { 4, 1 });
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("tensor 'w' has shape [2, 2], expected [4, 1]"), std::string::npos) << e.what();
    }
}

TEST_F(SafetensorsTest, ShardedIndex)
{
    writeFile(dir, "model-00001-of-00002.safetensors",
        makeSafetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8));
    writeFile(dir, "model-00002-of-00002.safetensors",
        makeSafetensors(R"({"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 4));
    writeFile(dir, "model.safetensors.index.json",
        R"({"metadata":{},"weight_map":{"a":"model-00001-of-00002.safetensors","b":"model-00002-of-00002.safetensors"}})");
    const auto store = SafetensorsStore::open(dir);
    EXPECT_EQ(store->size(), 2u);
    EXPECT_EQ(store->load("a").at({ 1 }), 1.0f);
    EXPECT_EQ(store->files().size(), 2u);
}

TEST_F(SafetensorsTest, ShardedIndexMissingTensor)
{
    writeFile(dir, "s1.safetensors", makeSafetensors(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8));
    writeFile(dir, "model.safetensors.index.json", R"({"weight_map":{"a":"s1.safetensors","zz":"s1.safetensors"}})");
    const auto msg = errorOf(dir);
    EXPECT_NE(msg.find("tensor 'zz' listed in weight_map is missing from s1.safetensors"), std::string::npos) << msg;
}

TEST_F(SafetensorsTest, ShardedIndexEscapingPath)
{
    writeFile(dir, "model.safetensors.index.json", R"({"weight_map":{"a":"../etc/passwd"}})");
    EXPECT_NE(errorOf(dir).find("points outside the folder"), std::string::npos);
}

TEST(SafetensorsFixtures, Gpt2FixtureLoads)
{
    const auto store = SafetensorsStore::open(test::sharedPath("fixtures/hf-tiny/gpt2/model.safetensors"));
    EXPECT_EQ(store->info("transformer.h.0.attn.c_attn.weight").shape, (Shape { 32, 96 }));
}

TEST(SafetensorsFixtures, Fp16AndBf16EqualTheirFloat32UpcastWithinRounding)
{
    const auto f32 = SafetensorsStore::open(test::sharedPath("fixtures/hf-tiny/gpt2/model.safetensors"));
    for (const char* variant : { "gpt2-fp16", "gpt2-bf16" }) {
        const auto half = SafetensorsStore::open(test::sharedPath(std::string("fixtures/hf-tiny/") + variant + "/model.safetensors"));
        const Tensor a = f32->load("transformer.wte.weight");
        const Tensor b = half->load("transformer.wte.weight");
        ASSERT_EQ(a.shape(), b.shape());
        const float relTol = std::string(variant) == "gpt2-fp16" ? 1.0f / 1024 : 1.0f / 128;
        for (int64_t i = 0; i < a.numel(); ++i)
            ASSERT_NEAR(a.data()[i], b.data()[i], std::abs(a.data()[i]) * relTol + 1e-7f) << variant << " element " << i;
    }
}

} // namespace
} // namespace attn
