// SPDX-License-Identifier: MIT
// MarianMT tokenizer folders (source.spm + target.spm + vocab.json) against ids and texts computed by the python
// sentencepiece library and the vocab.json mapping (tools/make_marian_tokenizer.py -> tests/data/marian-tok/).
#include "core/error.h"
#include "session/translator.h"
#include "support/shared_data.h"
#include "tokenizer/marian_tokenizer.h"
#include "tokenizer/tokenizer_loader.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace attn {
namespace {

const std::string kDir = std::string(AS_SOURCE_DIR) + "/tests/data/marian-tok";

nlohmann::json expected()
{
    std::ifstream in(kDir + "/expected.json");
    return nlohmann::json::parse(in);
}

/// The hf-tiny MarianMT fixture (vocab 128, eos 0, pad 127) laid out as a real MarianMT folder with this tokenizer.
std::string marianFolder()
{
    const fs::path dir = test::makeTempDir("marian-folder");
    const fs::path model = test::sharedPath("fixtures/hf-tiny/marian");
    for (const char* f : { "config.json", "model.safetensors" }) // copied: weights linked out of a folder are refused
        fs::copy_file(model / f, dir / f);
    for (const char* f : { "source.spm", "target.spm", "vocab.json", "tokenizer_config.json" })
        fs::copy_file(fs::path(kDir) / f, dir / f);
    return dir.string();
}

TEST(MarianTokenizer, EncodesLikePythonSentencePieceAndVocabJson)
{
    const auto tok = loadTokenizer(ModelSource {}, kDir);
    ASSERT_EQ(tok->kind(), "MarianMT SentencePiece");
    const nlohmann::json e = expected();
    EXPECT_EQ(tok->vocabSize(), e["vocab_size"].get<int64_t>());
    EXPECT_EQ(tok->eosId(), e["eos_id"].get<int64_t>());
    EXPECT_EQ(tok->unkId(), e["unk_id"].get<int64_t>());
    EXPECT_EQ(tok->padId(), e["pad_id"].get<int64_t>());
    for (const auto& c : e["encode"]) {
        const std::string text = c["text"];
        const std::vector<Token> tokens = tok->encode(text, true);
        EXPECT_EQ(tokenIds(tokens), c["ids"].get<std::vector<int64_t>>()) << text;
        ASSERT_EQ(tokens.size(), c["pieces"].size() + 1) << text;
        for (size_t i = 0; i < c["pieces"].size(); ++i) {
            EXPECT_EQ(tokens[i].piece, c["pieces"][i].get<std::string>()) << text << " piece " << i;
            ASSERT_LE(tokens[i].end, text.size());
            EXPECT_LE(tokens[i].begin, tokens[i].end);
        }
        EXPECT_TRUE(tokens.back().special);
        EXPECT_EQ(tokenIds(tok->encode(text, false)), std::vector<int64_t>(c["ids"].begin(), c["ids"].end() - 1));
    }
}

TEST(MarianTokenizer, SpansPointIntoTheTextAroundLanguageCodes)
{
    const MarianTokenizer tok(kDir);
    const std::string text = ">>fr<< the car";
    const std::vector<Token> tokens = tok.encode(text, false);
    ASSERT_GE(tokens.size(), 2u);
    EXPECT_EQ(text.substr(tokens[0].begin, tokens[0].end - tokens[0].begin), ">>fr<<");
    // like SentencePiece, a word-start piece ("▁car") spans the space before the word
    EXPECT_EQ(text.substr(tokens.back().begin, tokens.back().end - tokens.back().begin), " car");
    // a special token written in the text is that token, not its characters
    const std::vector<Token> withEos = tok.encode("the car </s> a dog", false);
    const auto eos = std::find_if(withEos.begin(), withEos.end(), [](const Token& t) { return t.special; });
    ASSERT_NE(eos, withEos.end());
    EXPECT_EQ(eos->id, tok.eosId());
    EXPECT_EQ(eos->begin, 8u);
    EXPECT_EQ(eos->end, 12u);
}

TEST(MarianTokenizer, DecodesTargetIdsLikePython)
{
    const auto tok = loadTokenizer(ModelSource {}, kDir + "/vocab.json");
    // Named: a range-for over expected()["decode"] would iterate a member of a temporary destroyed before the loop.
    const nlohmann::json e = expected();
    for (const auto& c : e["decode"])
        EXPECT_EQ(tok->decode(c["ids"].get<std::vector<int64_t>>(), true), c["text"].get<std::string>()) << c["ids"];
    // Without skipping, special tokens stay as their pieces (HF's convert_tokens_to_string).
    EXPECT_EQ(tok->decode({ tok->padId(), tok->eosId() }, false), "<pad> </s>");
    EXPECT_THROW(tok->decode({ 128 }, true), Error);
    EXPECT_THROW(tok->decode({ -1 }, true), Error);
}

TEST(MarianTokenizer, TargetTextUsesTargetSpm)
{
    const MarianTokenizer tok(kDir);
    // French words are whole pieces of target.spm only; the source model splits them.
    const std::vector<Token> target = tok.encodeTarget("la voiture", true);
    const std::vector<Token> source = tok.encode("la voiture", true);
    EXPECT_LT(target.size(), source.size());
    EXPECT_EQ(target.back().id, tok.eosId());
    EXPECT_EQ(tok.decode(tokenIds(target), true), "la voiture");
}

TEST(MarianTokenizer, TranslatorEncodesReferenceTargetsWithTargetSpm)
{
    const Translator model(marianFolder());
    const MarianTokenizer tok(kDir);
    EXPECT_EQ(model.target("la voiture rouge").ids, tokenIds(tok.encodeTarget("la voiture rouge", true)));
    EXPECT_NE(model.target("la voiture rouge").ids, model.source("la voiture rouge").ids);
}

TEST(MarianTokenizer, RefusesIncompleteFolders)
{
    const fs::path dir = test::makeTempDir("marian-incomplete");
    fs::copy_file(fs::path(kDir) / "source.spm", dir / "source.spm");
    fs::copy_file(fs::path(kDir) / "vocab.json", dir / "vocab.json");
    try {
        MarianTokenizer tok(dir.string());
        FAIL() << "loaded without target.spm";
    } catch (const Error& err) {
        EXPECT_NE(std::string(err.what()).find("target.spm"), std::string::npos) << err.what();
    }
    fs::copy_file(fs::path(kDir) / "target.spm", dir / "target.spm");
    std::ofstream(dir / "tokenizer_config.json") << R"({"eos_token": "<eos>"})";
    EXPECT_THROW(MarianTokenizer tok(dir.string()), Error); // the eos token is not in vocab.json
}

TEST(MarianTokenizer, CliTokenizeAndTranslateOnAMarianFolder)
{
    const std::string dir = marianFolder();
    const nlohmann::json c = expected()["encode"][0];
    std::string out;
    ASSERT_EQ(
        test::runCommand(
            test::cliPath() + " tokenize " + dir + " --special --text '" + c["text"].get<std::string>() + "'", &out),
        0)
        << out;
    std::string ids;
    for (const auto& id : c["ids"])
        ids += (ids.empty() ? "" : " ") + std::to_string(id.get<int64_t>());
    EXPECT_EQ(out, ids + "\n");

    // translate: the source is encoded by source.spm and the greedy ids decoded by target.spm
    const Translator model(dir);
    const auto source = model.source(c["text"]);
    EXPECT_EQ(source.ids, c["ids"].get<std::vector<int64_t>>());
    BeamOptions options;
    options.width = 1;
    options.maxNewTokens = 8;
    options.startToken = model.startToken();
    options.eosToken = model.eosToken();
    const auto beams = beamSearch(*model.decoder(source.ids), options);
    const std::string expectedText = MarianTokenizer(kDir).decode(beams.front().tokens, true);
    ASSERT_EQ(test::runCommand(test::cliPath() + " translate " + dir + " --max-new-tokens 8 --prompt '"
                      + c["text"].get<std::string>() + "'",
                  &out),
        0)
        << out;
    EXPECT_EQ(out, expectedText + "\n");
}

} // namespace
} // namespace attn
