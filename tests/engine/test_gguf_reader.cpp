// SPDX-License-Identifier: MIT
// The GGUF reader against every fixture file (header, metadata, tensor infos as the manifest lists them, written by
// ggml and llama.cpp) and against truncated or lying copies of the genuine stories260K.gguf made here.
#include "core/error.h"
#include "io/gguf.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

namespace attn {
namespace {

std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), {} };
}

nlohmann::json manifest()
{
    return nlohmann::json::parse(readBytes(test::sharedPath("fixtures/gguf/manifest.json")));
}

std::string upper(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

TEST(GgufReader, EveryFixtureFileMatchesItsManifestEntry)
{
    int files = 0;
    const nlohmann::json all = manifest();
    for (const auto& [model, entry] : all["models"].items()) {
        for (const auto& f : entry["files"]) {
            const GgufFile g(test::sharedPath("fixtures/gguf/" + f["path"].get<std::string>()));
            SCOPED_TRACE(g.path());
            EXPECT_EQ(g.version(), f["gguf_version"].get<uint32_t>());
            EXPECT_EQ(g.metadata().size(), f["n_kv"].get<size_t>());
            EXPECT_EQ(g.alignment(), f["alignment"].get<uint64_t>());
            EXPECT_EQ(g.dataOffset(), f["data_offset"].get<uint64_t>());
            ASSERT_EQ(g.tensors().size(), f["n_tensors"].get<size_t>());
            ASSERT_EQ(g.tensors().size(), f["tensors"].size());
            for (size_t i = 0; i < g.tensors().size(); ++i) {
                const GgufTensorInfo& t = g.tensors()[i];
                const auto& want = f["tensors"][i];
                EXPECT_EQ(t.name, want["name"].get<std::string>());
                EXPECT_EQ(upper(ggmlTypeTraits(t.type).name), want["type"].get<std::string>()) << t.name;
                EXPECT_EQ(t.ne, want["ne"].get<std::vector<int64_t>>()) << t.name;
                EXPECT_EQ(t.fileOffset - g.dataOffset(), want["offset"].get<uint64_t>()) << t.name;
                EXPECT_EQ(t.bytes, want["nbytes"].get<uint64_t>()) << t.name;
            }
            EXPECT_EQ(g.getString("general.architecture"), "llama");
            if (f["file_type"].is_number()) {
                EXPECT_EQ(g.getInt("general.file_type"), f["file_type"].get<int64_t>());
            }
            ++files;
        }
    }
    EXPECT_EQ(files, 15); // README: 4 stories260K, 6 hf-tiny-llama, 5 kq256
}

TEST(GgufReader, ReadsTheMetadataOfTheGenuineLlamaCppFile)
{
    const GgufFile g(test::sharedPath("fixtures/gguf/stories260K/stories260K.gguf"));
    EXPECT_EQ(g.getInt("llama.block_count"), 5);
    EXPECT_EQ(g.getInt("llama.embedding_length"), 64);
    EXPECT_EQ(g.getInt("llama.attention.head_count"), 8);
    EXPECT_EQ(g.getInt("llama.attention.head_count_kv"), 4);
    EXPECT_EQ(g.getInt("llama.feed_forward_length"), 172);
    EXPECT_FLOAT_EQ(static_cast<float>(*g.getFloat("llama.attention.layer_norm_rms_epsilon")), 1e-5f);
    EXPECT_EQ(g.getString("tokenizer.ggml.model"), "llama");
    const auto tokens = g.getStrings("tokenizer.ggml.tokens");
    ASSERT_TRUE(tokens);
    ASSERT_EQ(tokens->size(), 512u);
    EXPECT_EQ((*tokens)[1], "<s>");
    EXPECT_EQ(g.getNumbers("tokenizer.ggml.scores")->size(), 512u);
    EXPECT_THROW(g.getInt("tokenizer.ggml.model"), Error); // a string asked for as an integer
}

TEST(GgufReader, ReadsTheVocabOnlyFilesOfLlamaCpp)
{
    const GgufFile gpt2(test::sharedPath("models/gpt2-bpe-tokenizer/ggml-vocab-gpt-2.gguf"));
    EXPECT_TRUE(gpt2.tensors().empty());
    EXPECT_EQ(gpt2.getString("tokenizer.ggml.model"), "gpt2");
    EXPECT_EQ(gpt2.getStrings("tokenizer.ggml.tokens")->size(), 50257u);
    EXPECT_EQ(gpt2.getStrings("tokenizer.ggml.merges")->size(), 50000u);
    EXPECT_EQ(gpt2.getInt("tokenizer.ggml.bos_token_id"), 50256);
    const GgufFile bert(test::sharedPath("models/bert-uncased-wordpiece-vocab/ggml-vocab-bert-bge.gguf"));
    EXPECT_EQ(bert.getString("tokenizer.ggml.model"), "bert");
    std::ifstream vocab(test::sharedPath("models/bert-uncased-wordpiece-vocab/vocab.txt"));
    size_t lines = 0;
    for (std::string line; std::getline(vocab, line);)
        ++lines;
    EXPECT_EQ(bert.getStrings("tokenizer.ggml.tokens")->size(), lines);
}

/// Altered copies of stories260K.gguf: each defect must give an Error naming the file and the defect.
class GgufDefects : public ::testing::Test {
protected:
    std::string genuine = readBytes(test::sharedPath("fixtures/gguf/stories260K/stories260K.gguf"));
    std::string dir = test::makeTempDir("gguf");

    std::string errorOf(const std::string& bytes)
    {
        const std::string path = dir + "/bad.gguf";
        std::ofstream(path, std::ios::binary | std::ios::trunc)
            .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        try {
            GgufFile g(path);
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
            return e.what();
        }
        return "<no error>";
    }
    template <class T> std::string with(size_t at, T value)
    {
        std::string b = genuine;
        std::memcpy(b.data() + at, &value, sizeof value);
        return b;
    }
    /// Where the tensor info of `name` starts (its name length field).
    size_t tensorInfoAt(const std::string& name) const
    {
        std::string pattern(8, '\0');
        const uint64_t len = name.size();
        std::memcpy(pattern.data(), &len, 8);
        const size_t at = genuine.find(pattern + name);
        EXPECT_NE(at, std::string::npos);
        return at;
    }
    size_t keyEnd(const std::string& key) const { return genuine.find(key) + key.size(); }
};

TEST_F(GgufDefects, TheGenuineBytesParse)
{
    EXPECT_EQ(errorOf(genuine), "<no error>");
}

TEST_F(GgufDefects, TruncationAnywhereIsReportedAsTruncation)
{
    for (const size_t size : { size_t(3), size_t(10), size_t(20), size_t(200), size_t(5000), size_t(14000),
             genuine.size() / 2, genuine.size() - 1 }) {
        const std::string e = errorOf(genuine.substr(0, size));
        EXPECT_TRUE(e.find("truncated") != std::string::npos || e.find("past the end") != std::string::npos)
            << size << ": " << e;
    }
}

TEST_F(GgufDefects, MagicVersionAndByteOrder)
{
    EXPECT_NE(errorOf(with<uint32_t>(0, 0x4c4c4747)).find("not a GGUF file"), std::string::npos);
    EXPECT_NE(errorOf(with<uint32_t>(4, 1)).find("version 1"), std::string::npos);
    EXPECT_NE(errorOf(with<uint32_t>(4, 7)).find("version 7 is not supported"), std::string::npos);
    EXPECT_NE(errorOf(with<uint32_t>(4, 0x03000000)).find("big-endian"), std::string::npos);
}

TEST_F(GgufDefects, LyingCountsAreRefusedBeforeAllocating)
{
    EXPECT_NE(
        errorOf(with<uint64_t>(8, uint64_t(1) << 40)).find("the tensor count is 1099511627776, more than the 1048576"),
        std::string::npos);
    // Under the cap, but more tensor infos than the rest of the file can hold.
    EXPECT_NE(errorOf(with<uint64_t>(8, 100000)).find("more than the remaining"), std::string::npos);
    EXPECT_NE(errorOf(with<uint64_t>(16, UINT64_MAX)).find("the metadata key count"), std::string::npos);
    // The first key's name length, then the element count of the token array.
    EXPECT_NE(errorOf(with<uint64_t>(24, uint64_t(1) << 50)).find("the name of metadata key 0"), std::string::npos);
    std::string e = errorOf(with<uint64_t>(keyEnd("tokenizer.ggml.tokens") + 8, uint64_t(1) << 61));
    EXPECT_NE(e.find("element count of 'tokenizer.ggml.tokens'"), std::string::npos) << e;
    e = errorOf(with<uint64_t>(keyEnd("tokenizer.ggml.tokens") + 8, (uint64_t(1) << 24) + 1)); // the absolute cap
    EXPECT_NE(e.find("is 16777217, more than the 16777216 this reader accepts"), std::string::npos) << e;
    e = errorOf(with<uint64_t>(keyEnd("tokenizer.ggml.tokens") + 8, 200000)); // under the cap, past the end
    EXPECT_NE(e.find("element count of 'tokenizer.ggml.tokens' is 200000, more than the remaining"), std::string::npos)
        << e;
    // The length of the first token string: past the end of the file.
    const std::string s = errorOf(with<uint64_t>(keyEnd("tokenizer.ggml.tokens") + 16, uint64_t(1) << 33));
    EXPECT_NE(s.find("truncated"), std::string::npos) << s;
    EXPECT_NE(s.find("tokenizer.ggml.tokens"), std::string::npos) << s;
}

TEST_F(GgufDefects, UnknownTypesNameTheKeyOrTensor)
{
    const size_t arch = keyEnd("general.architecture");
    EXPECT_NE(errorOf(with<uint32_t>(arch, 13)).find("key 'general.architecture' has unknown value type 13"),
        std::string::npos);
    EXPECT_NE(errorOf(with<uint32_t>(keyEnd("tokenizer.ggml.tokens") + 4, 77)).find("unknown array element type 77"),
        std::string::npos);
    const size_t info = tensorInfoAt("blk.0.attn_q.weight");
    const size_t typeAt = info + 8 + std::string("blk.0.attn_q.weight").size() + 4 + 2 * 8;
    std::string e = errorOf(with<uint32_t>(typeAt, 99));
    EXPECT_NE(e.find("tensor 'blk.0.attn_q.weight' has type type 99, which this build cannot read"), std::string::npos)
        << e;
    e = errorOf(with<uint32_t>(typeAt, 16)); // a real ggml type this build does not read
    EXPECT_NE(e.find("has type iq2_xxs"), std::string::npos) << e;
}

TEST_F(GgufDefects, ShapesAndOffsetsAreChecked)
{
    const std::string name = "token_embd.weight";
    const size_t info = tensorInfoAt(name);
    const size_t dimsAt = info + 8 + name.size();
    EXPECT_NE(errorOf(with<uint32_t>(dimsAt, 9)).find("has 9 dimensions"), std::string::npos);
    EXPECT_NE(errorOf(with<uint64_t>(dimsAt + 4, uint64_t(1) << 62)).find("overflows"), std::string::npos);
    // One float32 row of 2^62 + 32 elements: its 2^64 + 128 bytes would wrap to 128, which fit in the file, and a
    // reader of that row would then allocate 2^62 floats (found by fuzz_gguf).
    std::string wide = with<uint64_t>(dimsAt + 4, (uint64_t(1) << 62) + 32);
    const uint64_t oneRow = 1;
    std::memcpy(wide.data() + dimsAt + 12, &oneRow, sizeof oneRow);
    std::string e = errorOf(wide);
    EXPECT_NE(e.find("the row size of tensor 'token_embd.weight' overflows 64 bits"), std::string::npos) << e;
    // Rows of length 0 over 2^40 x 2^40 rows: 0 elements, but the row count (what rows() and numel() multiply,
    // `info` sums) is 2^80. A third dimension is inserted after the second.
    std::string empty = with<uint32_t>(dimsAt, 3);
    const uint64_t zero = 0, tall = uint64_t(1) << 40;
    std::memcpy(empty.data() + dimsAt + 4, &zero, 8);
    std::memcpy(empty.data() + dimsAt + 12, &tall, 8);
    empty.insert(dimsAt + 20, reinterpret_cast<const char*>(&tall), 8);
    e = errorOf(empty);
    EXPECT_NE(e.find("the row count of tensor 'token_embd.weight' overflows 64 bits"), std::string::npos) << e;
    const size_t offsetAt = dimsAt + 4 + 2 * 8 + 4;
    e = errorOf(with<uint64_t>(offsetAt, uint64_t(1) << 30));
    EXPECT_NE(e.find("tensor 'token_embd.weight': its data"), std::string::npos) << e;
    EXPECT_NE(e.find("past the end of the file"), std::string::npos) << e;
    e = errorOf(with<uint64_t>(offsetAt, UINT64_MAX - 31));
    EXPECT_NE(e.find("overflows"), std::string::npos) << e;
    EXPECT_NE(errorOf(with<uint64_t>(offsetAt, 4)).find("not a multiple of the alignment"), std::string::npos);
}

} // namespace
} // namespace attn
