// SPDX-License-Identifier: MIT
// The shared guards every loader calls for hostile input: checked size arithmetic, the bounded JSON reader, the
// regular-file reader and the linear-time Marian language-code scanner (checked against std::regex on short inputs,
// where the regex is safe).
#include "core/checked.h"
#include "core/error.h"
#include "core/input_file.h"
#include "core/tensor.h"
#include "io/json_input.h"
#include "tokenizer/language_code.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <regex>
#include <sys/stat.h>

namespace attn {
namespace {

/// The message of the Error fn throws ("" when it returns): the engine's own capture().
template <class Fn> std::string errorOf(Fn&& fn)
{
    return capture([&] {
        fn();
        return 0;
    }).error();
}

TEST(HostileChecked, ProductsAndSumsThatOverflowAreRefused)
{
    EXPECT_EQ(checkedMul(int64_t(1) << 31, int64_t(1) << 31), int64_t(1) << 62);
    EXPECT_FALSE(checkedMul(int64_t(1) << 32, int64_t(1) << 31));
    EXPECT_FALSE(checkedMul(-1, 2));
    EXPECT_FALSE(checkedAdd(INT64_MAX, 1));
    EXPECT_EQ(checkedAdd(INT64_MAX - 1, 1), INT64_MAX);
    // The .npy shape of issue 20: its int64 product wraps to 0, which let a 128-byte file pass the payload check.
    const int64_t wrap = int64_t(7) << 32;
    EXPECT_NE(errorOf([&] { shapeNumel({ 1, wrap, wrap }, "x.npy"); }).find("x.npy: shape [1, "), std::string::npos);
    EXPECT_NE(
        errorOf([&] { shapeBytes({ int64_t(1) << 62 }, 4, "t"); }).find("does not fit in 64 bits"), std::string::npos);
    EXPECT_EQ(shapeBytes({ 3, 5 }, 4), 60);
    EXPECT_NE(errorOf([] { shapeNumel({ 2, -3 }); }).find("negative dimension"), std::string::npos);
}

TEST(HostileJson, DepthIsBoundedWhileParsing)
{
    const auto nested = [](int depth) { return std::string(size_t(depth), '[') + std::string(size_t(depth), ']'); };
    EXPECT_NO_THROW(parseUntrustedJson(nested(kMaxJsonDepth), "f.json", "JSON"));
    EXPECT_NE(errorOf([&] {
        parseUntrustedJson(nested(kMaxJsonDepth + 1), "f.json", "JSON");
    }).find("f.json: JSON nests deeper than 64 levels"),
        std::string::npos);
    // 200k levels would overflow any recursive parser or dump(); this must be refused, not crash.
    EXPECT_NE(
        errorOf([&] { parseUntrustedJson(nested(200000), "f.json", "JSON"); }).find("nests deeper"), std::string::npos);
}

TEST(HostileJson, DuplicateKeysInOneObjectAreRefused)
{
    EXPECT_NE(errorOf([] {
        parseUntrustedJson(R"({"a": 1, "b": {"a": 2}, "a": 3})", "h", "header");
    }).find("h: header has the key \"a\" twice in one object"),
        std::string::npos);
    // The same key in sibling or nested objects is fine.
    const auto j = parseUntrustedJson(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 1}, {"x": 2}]})", "h", "header");
    EXPECT_EQ(j["b"]["x"], 2);
}

TEST(HostileJson, MessagesQuoteAShortPrefixOnly)
{
    const std::string longText = "\"" + std::string(100000, 'q') + "\"";
    EXPECT_LE(describeJson(nlohmann::json::parse(longText)).size(), 60u);
    EXPECT_EQ(describeJson(nlohmann::json::parse("[1, [2, 3]]")), "an array of 2 values");
    EXPECT_EQ(describeJson(nlohmann::json::parse("-7")), "the number -7");
    // A syntax error after a long token: nlohmann quotes the whole token; the message keeps 40 characters of it.
    const std::string message = errorOf([] { parseUntrustedJson("{\"a\": " + std::string(100000, 'x'), "f", "JSON"); });
    EXPECT_NE(message.find("f: malformed JSON"), std::string::npos);
    EXPECT_LT(message.size(), 400u);
}

/// jsonAccessMessage of what `access` throws.
template <class Fn> std::string accessMessageOf(Fn&& access)
{
    try {
        access();
    } catch (const nlohmann::json::exception& e) {
        return jsonAccessMessage(e);
    }
    return "";
}

TEST(HostileJson, AccessErrorsAreInWordsWithoutNlohmannsTag)
{
    const nlohmann::json j = nlohmann::json::parse(R"({"a": "text", "b": [1]})");
    EXPECT_EQ(accessMessageOf([&] { (void)j.at("a").at(0); }), "cannot look up a key or index in a string");
    EXPECT_EQ(accessMessageOf([&] { (void)j.at("b").at("x"); }), "cannot look up a key or index in an array");
    EXPECT_EQ(accessMessageOf([&] { (void)j.at("a").get<int64_t>(); }), "type must be number, but is string");
    EXPECT_EQ(accessMessageOf([&] { (void)j.at("b").at(3); }), "array index 3 is out of range");
    // A missing key from the file is quoted, cut to 40 characters.
    const std::string key(100000, 'k');
    EXPECT_EQ(accessMessageOf([&] { (void)j.at(key); }), "key '" + std::string(40, 'k') + "...' not found");
}

TEST(HostileFiles, OnlyRegularFilesWithinTheirCapAreRead)
{
    char dirTemplate[] = "/tmp/attn-hostile-XXXXXX";
    const std::string dir = mkdtemp(dirTemplate);
    const std::string fifo = dir + "/fifo.json";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    // A FIFO without a writer would block open() forever; it is refused at once.
    EXPECT_NE(errorOf([&] { readInputFile(fifo, 1 << 20, "config"); }).find(fifo + ": is not a regular file"),
        std::string::npos);
    EXPECT_NE(
        errorOf([] { readInputFile("/dev/zero", 1 << 20, "config"); }).find("not a regular file"), std::string::npos);
    EXPECT_NE(errorOf([&] { readInputFile(dir, 1 << 20, "config"); }).find("is a folder"), std::string::npos);
    const std::string big = dir + "/big.json";
    std::ofstream(big) << std::string(2000, ' ');
    EXPECT_NE(errorOf([&] { readInputFile(big, 1000, "config"); }).find("is 2000 bytes, more than"), std::string::npos);
    EXPECT_EQ(readInputFile(big, 2000, "config").size(), 2000u);
    std::remove(fifo.c_str());
    std::remove(big.c_str());
    rmdir(dir.c_str());
}

/// Every match of std::regex(">>.+<<") as [begin, end) pairs, as MarianTokenizer matched them before.
std::vector<std::pair<size_t, size_t>> regexMatches(const std::string& text)
{
    static const std::regex code(">>.+<<");
    std::vector<std::pair<size_t, size_t>> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), code); it != std::sregex_iterator(); ++it)
        out.emplace_back(size_t(it->position()), size_t(it->position() + it->length()));
    return out;
}

std::vector<std::pair<size_t, size_t>> scannerMatches(const std::string& text)
{
    std::vector<std::pair<size_t, size_t>> out;
    for (auto m = nextLanguageCode(text, 0); m.first != std::string::npos; m = nextLanguageCode(text, m.second))
        out.push_back(m);
    return out;
}

TEST(HostileMarian, LanguageCodeScannerMatchesTheRegexItReplaces)
{
    std::mt19937 rng(20);
    const char alphabet[] = { '>', '<', 'a', '\n', '\r', ' ' };
    for (int trial = 0; trial < 20000; ++trial) {
        std::string text(rng() % 14, ' ');
        for (char& ch : text)
            ch = alphabet[rng() % sizeof alphabet];
        ASSERT_EQ(scannerMatches(text), regexMatches(text)) << "text: " << text;
    }
    // The issue's input: a 26k-character tag overflowed std::regex; the scan is linear and finds the one code.
    const std::string tag = ">>" + std::string(26000, 'x') + "<<";
    EXPECT_EQ(scannerMatches(tag + " hello"), (std::vector<std::pair<size_t, size_t>> { { 0, tag.size() } }));
    EXPECT_TRUE(scannerMatches(std::string(1 << 20, '>')).empty());
}

} // namespace
} // namespace attn
