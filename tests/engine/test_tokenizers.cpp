// SPDX-License-Identifier: MIT
// Tokenizers against independent references: HF transformers' ids for the hf-tiny fixtures, llama.cpp's GPT-2 and
// BERT reference cases, llama2.c's tok512 (tokenizer.bin vs the SentencePiece model it was exported from, and the
// run.c-generated story), plus spans, round trips and the errors for broken files.
#include "core/error.h"
#include "model/model_source.h"
#include "support/shared_data.h"
#include "tokenizer/gpt2_pretokenizer.h"
#include "tokenizer/hf_vocab_files.h"
#include "tokenizer/llama2c_tokenizer.h"
#include "tokenizer/sentencepiece_tokenizer.h"
#include "tokenizer/tokenizer_loader.h"
#include "tokenizer/unicode.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace attn {
namespace {

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void writeFile(const std::string& path, const std::string& bytes)
{
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::string> pieces(const std::vector<Token>& tokens)
{
    std::vector<std::string> out;
    for (const Token& t : tokens)
        out.push_back(t.piece);
    return out;
}

std::unique_ptr<Tokenizer> loadFolder(const std::string& folder)
{
    return loadTokenizer(probeModel(folder));
}

/// The tokenizer-only folders of tools/make_tok_dirs.sh: genuine GPT-2 and BERT-uncased vocabularies.
std::string realTokenizerDirs()
{
    static const std::string dir = [] {
        const std::string d = test::makeTempDir("tok");
        const std::string cmd = "bash '" + test::sharedPath("tools/make_tok_dirs.sh") + "' '" + d + "'";
        std::string output;
        if (test::runCommand(cmd, &output) != 0) throw std::runtime_error("make_tok_dirs.sh failed: " + output);
        return d;
    }();
    return dir;
}

/// llama.cpp's reference cases: texts split by "\n__ggml_vocab_test__\n", one line of ids per text.
std::vector<std::pair<std::string, std::vector<int64_t>>> ggmlCases(const std::string& base)
{
    const std::string inp = readFile(test::sharedPath(base + ".inp"));
    const std::string sep = "\n__ggml_vocab_test__\n";
    std::vector<std::string> texts;
    for (size_t pos = 0, next; (next = inp.find(sep, pos)) != std::string::npos; pos = next + sep.size())
        texts.push_back(inp.substr(pos, next - pos));
    std::istringstream out(readFile(test::sharedPath(base + ".out")));
    std::vector<std::pair<std::string, std::vector<int64_t>>> cases;
    std::string line;
    for (const std::string& t : texts) {
        std::getline(out, line);
        std::istringstream ids(line);
        std::vector<int64_t> v;
        for (int64_t id; ids >> id;)
            v.push_back(id);
        cases.emplace_back(t, v);
    }
    return cases;
}

/// Non-special tokens of a BPE or byte tokenizer tile the text in order.
void expectSpansTile(const std::string& text, const std::vector<Token>& tokens)
{
    size_t at = 0;
    for (const Token& t : tokens) {
        if (t.special) {
            EXPECT_EQ(t.begin, t.end);
            continue;
        }
        EXPECT_EQ(t.begin, at) << "token " << t.piece << " in '" << text << "'";
        EXPECT_LE(t.begin, t.end);
        at = t.end;
    }
    EXPECT_EQ(at, text.size()) << text;
}

std::string errorOf(const std::function<void()>& fn)
{
    try {
        fn();
    } catch (const Error& e) {
        return e.what();
    }
    return "<no error>";
}

bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

// --- hf-tiny fixtures (ids from HF transformers) -------------------------------------------------------------

TEST(Tokenizers, Gpt2FixtureCases)
{
    const std::string dir = test::sharedPath("fixtures/hf-tiny/gpt2");
    const auto tok = loadFolder(dir);
    EXPECT_EQ(tok->kind(), "byte-level BPE");
    EXPECT_EQ(tok->vocabSize(), 300);
    EXPECT_EQ(tok->eosId(), 299);
    const auto cases = nlohmann::json::parse(readFile(dir + "/tokenizer_cases.json"));
    ASSERT_GE(cases.size(), 10u);
    for (const auto& c : cases) {
        const std::string text = c["text"].get<std::string>();
        const auto tokens = tok->encode(text);
        EXPECT_EQ(tokenIds(tokens), c["ids"].get<std::vector<int64_t>>()) << text;
        EXPECT_EQ(pieces(tokens), c["tokens"].get<std::vector<std::string>>()) << text;
        EXPECT_EQ(tok->decode(tokenIds(tokens)), c["decoded"].get<std::string>()) << text;
        expectSpansTile(text, tokens);
    }
}

TEST(Tokenizers, BertFixtureCases)
{
    const std::string dir = test::sharedPath("fixtures/hf-tiny/bert");
    const auto tok = loadFolder(dir);
    EXPECT_EQ(tok->kind(), "WordPiece");
    EXPECT_EQ(tok->clsId(), 2);
    EXPECT_EQ(tok->sepId(), 3);
    EXPECT_EQ(tok->maskId(), 4);
    EXPECT_EQ(tok->unkId(), 1);
    const auto cases = nlohmann::json::parse(readFile(dir + "/tokenizer_cases.json"));
    ASSERT_GE(cases.size(), 10u);
    for (const auto& c : cases) {
        const std::string text = c["text"].get<std::string>();
        const auto tokens = tok->encode(text);
        EXPECT_EQ(tokenIds(tokens), c["ids"].get<std::vector<int64_t>>()) << text;
        EXPECT_EQ(pieces(tokens), c["tokens"].get<std::vector<std::string>>()) << text;
        for (const Token& t : tokens) {
            EXPECT_LE(t.begin, t.end);
            EXPECT_LE(t.end, text.size());
        }
    }
}

TEST(Tokenizers, BertSpansPointAtTheOriginalText)
{
    const auto tok = loadFolder(test::sharedPath("fixtures/hf-tiny/bert"));
    const std::string text = "The DOG jumps.";
    const auto tokens = tok->encode(text);
    ASSERT_EQ(tokens.size(), 6u);
    EXPECT_TRUE(tokens[0].special);
    EXPECT_EQ(tokens[0].begin, tokens[0].end);
    EXPECT_EQ(text.substr(tokens[2].begin, tokens[2].end - tokens[2].begin), "DOG"); // lowercased "dog"
    EXPECT_EQ(text.substr(tokens[4].begin, tokens[4].end - tokens[4].begin), ".");
    // "café" -> c ##a ##f ##e: the last piece covers the two bytes of "é".
    const auto cafe = tok->encode("café", false);
    ASSERT_EQ(cafe.size(), 4u);
    EXPECT_EQ(cafe[3].begin, 3u);
    EXPECT_EQ(cafe[3].end, 5u);
}

TEST(Tokenizers, BertTextPairHasTokenTypes)
{
    const auto tok = loadFolder(test::sharedPath("fixtures/hf-tiny/bert"));
    const auto tokens = tok->encodePair("Hello, World!", "the dog");
    // [CLS] hello , world ! [SEP] the dog [SEP]
    EXPECT_EQ(tokenIds(tokens), (std::vector<int64_t> { 2, 113, 16, 114, 5, 3, 99, 106, 3 }));
    std::vector<int> types;
    for (const Token& t : tokens)
        types.push_back(t.typeId);
    EXPECT_EQ(types, (std::vector<int> { 0, 0, 0, 0, 0, 0, 1, 1, 1 }));
    EXPECT_EQ(tokens[7].begin, 4u); // "dog" in the second text
}

// --- llama.cpp reference cases, genuine vocabularies -----------------------------------------------------------

TEST(Tokenizers, Gpt2MatchesLlamaCppReference)
{
    const auto tok = loadFolder(realTokenizerDirs() + "/gpt2");
    EXPECT_EQ(tok->vocabSize(), 50257);
    const auto cases = ggmlCases("models/gpt2-bpe-tokenizer/ggml-vocab-gpt-2.gguf");
    ASSERT_EQ(cases.size(), 46u);
    for (const auto& [text, ids] : cases) {
        const auto tokens = tok->encode(text, false);
        EXPECT_EQ(tokenIds(tokens), ids) << text;
        EXPECT_EQ(tok->decode(tokenIds(tokens)), text); // byte-level BPE round-trips everything
        expectSpansTile(text, tokens);
    }
}

TEST(Tokenizers, BertMatchesLlamaCppReference)
{
    const auto tok = loadFolder(realTokenizerDirs() + "/bert");
    const auto cases = ggmlCases("models/bert-uncased-wordpiece-vocab/ggml-vocab-bert-bge.gguf");
    ASSERT_EQ(cases.size(), 46u);
    for (const auto& [text, ids] : cases)
        EXPECT_EQ(tokenIds(tok->encode(text, false)), ids) << text;
}

TEST(Tokenizers, Gpt2DisplayTextAndSpecialTokenInText)
{
    const auto tok = loadFolder(realTokenizerDirs() + "/gpt2");
    const auto tokens = tok->encode(" the<|endoftext|>x");
    ASSERT_EQ(tokens.size(), 3u);
    EXPECT_EQ(tokens[0].piece, "\xC4\xA0the"); // "Ġthe"
    EXPECT_EQ(tok->tokenText(tokens[0].id), " the");
    EXPECT_EQ(tokens[1].id, 50256);
    EXPECT_TRUE(tokens[1].special);
    EXPECT_EQ(tokens[1].begin, 4u);
    EXPECT_EQ(tokens[1].end, 17u);
    EXPECT_EQ(tok->decode(tokenIds(tokens), true), " thex");
    // Half of a UTF-8 character is shown as its byte.
    EXPECT_EQ(tok->tokenText(tok->encode("\xC3", false).at(0).id), "<0xC3>");
}

TEST(Tokenizers, BertRoundTripOfNormalizedText)
{
    const auto tok = loadFolder(realTokenizerDirs() + "/bert");
    for (const std::string text : { "hello world", "hello, world! how are you?", "it's a test.", "" })
        EXPECT_EQ(tok->decode(tokenIds(tok->encode(text)), true), text);
    // Not normalized: lowercased, accents stripped, spaces collapsed, "-" spaced.
    EXPECT_EQ(tok->decode(tokenIds(tok->encode("  Héllo   WORLD-wide ")), true), "hello world - wide");
    EXPECT_EQ(tok->decode(tokenIds(tok->encode("hello"))), "[CLS] hello [SEP]");
}

// --- GPT-2 pre-tokenization and Unicode tables -----------------------------------------------------------------

std::vector<std::string> preTokens(const std::string& text)
{
    std::vector<std::string> out;
    for (const auto& [b, e] : gpt2PreTokenize(text))
        out.push_back(text.substr(b, e - b));
    return out;
}

TEST(Tokenizers, Gpt2RegexFollowsThePattern)
{
    using V = std::vector<std::string>;
    EXPECT_EQ(preTokens("Hello  world"), (V { "Hello", " ", " world" })); // \s+(?!\S) leaves one space
    EXPECT_EQ(preTokens("a\n\nb"), (V { "a", "\n", "\n", "b" }));
    EXPECT_EQ(preTokens("end   "), (V { "end", "   " })); // trailing whitespace stays whole
    EXPECT_EQ(preTokens("we're 'RE'sup"), (V { "we", "'re", " '", "RE", "'s", "up" })); // lowercase contractions only
    EXPECT_EQ(preTokens("x 123abc !?"), (V { "x", " 123", "abc", " !?" }));
    EXPECT_EQ(preTokens("нещо 你好"), (V { "нещо", " 你好" })); // \p{L} beyond ASCII
    EXPECT_EQ(preTokens("٣٤ ½"), (V { "٣٤", " ½" })); // \p{N}: Arabic-Indic digits, No
    EXPECT_EQ(preTokens("a\u3000b"), (V { "a", "\u3000", "b" })); // ideographic space is \s
    // Khmer vowel signs are marks (Mc/Mn), neither letters nor numbers.
    EXPECT_EQ(preTokens("\u1780\u17B6"), (V { "\u1780", "\u17B6" }));
}

TEST(Tokenizers, UnicodeTables)
{
    using unicode::Category;
    EXPECT_EQ(unicode::category(U'A'), Category::Lu);
    EXPECT_EQ(unicode::category(U'\u0E01'), Category::Lo);
    EXPECT_EQ(unicode::category(U'\u0301'), Category::Mn);
    EXPECT_EQ(unicode::category(U'\u00BD'), Category::No);
    EXPECT_EQ(unicode::category(U'\u200D'), Category::Cf);
    EXPECT_EQ(unicode::category(U'\U0001F600'), Category::So);
    EXPECT_EQ(unicode::category(0x0378), Category::Cn); // unassigned
    EXPECT_TRUE(unicode::isPunctuation(U'\u3001'));
    EXPECT_FALSE(unicode::isPunctuation(U'$'));
    EXPECT_EQ(unicode::decompose(U'\u00E9'), U"e\u0301");
    EXPECT_EQ(unicode::decompose(U'\u1E69'), U"s\u0323\u0307"); // recursive: ṩ
    EXPECT_EQ(unicode::decompose(U'\uAC00'), U"\u1100\u1161"); // Hangul LV
    EXPECT_EQ(unicode::decompose(U'\uD7A3'), U"\u1112\u1175\u11C2"); // Hangul LVT
    EXPECT_EQ(unicode::toLower(U'\u0130'), U"i\u0307");
    EXPECT_EQ(unicode::toLower(U'\u0411'), U"\u0431");
    EXPECT_EQ(unicode::displayBytes("a\xE2\x82"), "a<0xE2><0x82>");
}

// --- llama2.c tok512 -----------------------------------------------------------------------------------------

std::unique_ptr<Tokenizer> storiesTokenizer()
{
    return loadTokenizer(probeModel(test::sharedPath("models/stories260K/stories260K.bin")));
}

TEST(Tokenizers, Llama2cFindsTok512BesideTheModel)
{
    const auto tok = storiesTokenizer();
    EXPECT_EQ(tok->kind(), "llama2.c BPE");
    EXPECT_EQ(fs::path(tok->path()).filename(), "tok512.bin");
    EXPECT_EQ(tok->vocabSize(), 512);
    EXPECT_EQ(tok->bosId(), 1);
    EXPECT_EQ(tok->eosId(), 2);
}

TEST(Tokenizers, Llama2cDecodesTheReferenceStory)
{
    const auto ref
        = nlohmann::json::parse(readFile(test::sharedPath("models/stories260K/reference_greedy_token_ids.json")));
    const auto ids = ref["token_ids"].get<std::vector<int64_t>>();
    ASSERT_EQ(ids.front(), 1);
    const auto tok = storiesTokenizer();
    EXPECT_EQ(tok->decode(ids), ref["text"].get<std::string>());
    // run.c's own output of that run begins the same way.
    const std::string runc = readFile(test::sharedPath("models/stories260K/expected_greedy_t0.0_n256.txt"));
    EXPECT_EQ(runc.substr(0, 40), ref["text"].get<std::string>().substr(0, 40));
}

TEST(Tokenizers, Llama2cEncodesOnceUponATime)
{
    const auto ids = nlohmann::json::parse(
        readFile(test::sharedPath("models/stories260K/reference_greedy_token_ids.json")))["token_ids"]
                         .get<std::vector<int64_t>>();
    const auto tok = storiesTokenizer();
    // The story's first four generated tokens spell the prompt; run.c's encode() gives the same ids.
    const std::vector<int64_t> prefix(ids.begin(), ids.begin() + 5);
    ASSERT_EQ(tok->decode(prefix), "Once upon a time");
    const std::string text = "Once upon a time";
    const auto tokens = tok->encode(text, true);
    EXPECT_EQ(tokenIds(tokens), prefix);
    expectSpansTile(text, tokens);
    // Without BOS the dummy prefix is still there (run.c always adds it to non-empty text).
    const auto noBos = tok->encode(text, false);
    EXPECT_EQ(tokenIds(noBos), std::vector<int64_t>(prefix.begin() + 1, prefix.end()));
    EXPECT_EQ(tok->decode(tokenIds(noBos)), " " + text);
    EXPECT_TRUE(tok->encode("", false).empty());
}

TEST(Tokenizers, Llama2cDecodeRules)
{
    const auto tok = storiesTokenizer();
    const auto& l2c = dynamic_cast<const Llama2cTokenizer&>(*tok);
    const int64_t space = tokenIds(tok->encode(" ", false)).at(0);
    EXPECT_EQ(l2c.piece(space), " ");
    EXPECT_EQ(tok->decode({ 1, space }), ""); // the leading space after BOS goes
    EXPECT_EQ(tok->decode({ space, space }), "  ");
    EXPECT_EQ(tok->decode({ 1, 3 + 'H', 3 + 'i', 3 + '\n', 2 }), "Hi\n"); // <0xNN> are bytes; EOS not printed
    EXPECT_EQ(tok->decode({ 3 + 0x01, 3 + 'a' }), "a"); // a non-printable control byte is dropped, as run.c does
    EXPECT_EQ(tok->decode({ 3 + 0xC3, 3 + 0xA9 }), "\xC3\xA9"); // UTF-8 bytes are kept
    EXPECT_EQ(tok->decode({ 0 }), "<unk>");
    EXPECT_EQ(tok->decode({ 0 }, true), "");
    EXPECT_EQ(tok->tokenText(1), "<s>");
    EXPECT_EQ(tok->tokenText(3 + '\n'), "\n");
    EXPECT_THROW(tok->decode({ 512 }), Error);
}

TEST(Tokenizers, Llama2cByteFallbackAndRoundTrip)
{
    const auto tok = storiesTokenizer();
    // "中" is not in tok512 ("é" is): its UTF-8 bytes become <0xNN> tokens, each spanning its byte.
    const auto tokens = tok->encode("\xE4\xB8\xAD", false);
    ASSERT_EQ(tokens.size(), 4u);
    EXPECT_EQ(tokens[0].piece, " ");
    EXPECT_EQ(tokens[1].piece, "<0xE4>");
    EXPECT_EQ(tokens[2].piece, "<0xB8>");
    EXPECT_EQ(tokens[3].piece, "<0xAD>");
    EXPECT_EQ(tokens[3].begin, 2u);
    EXPECT_EQ(tokens[3].end, 3u);
    EXPECT_EQ(tokenIds(tok->encode("\xC3\xA9", false)).size(), 2u); // " " + "é"
    for (const auto& [text, ids] : ggmlCases("models/gpt2-bpe-tokenizer/ggml-vocab-gpt-2.gguf")) {
        const auto enc = tok->encode(text, true);
        EXPECT_EQ(tok->decode(tokenIds(enc)), text);
        expectSpansTile(text, enc);
    }
}

TEST(Tokenizers, Tok512ModelAndVocabAgreeWithTok512Bin)
{
    const auto bin = storiesTokenizer();
    const auto& l2c = dynamic_cast<const Llama2cTokenizer&>(*bin);
    // tok512.vocab: "piece<TAB>score" per id, "▁" for space; tokenizer.bin writes <s>, </s> as "\n<s>\n", "\n</s>\n".
    std::istringstream vocab(readFile(test::sharedPath("models/stories260K/tok512.vocab")));
    std::string line;
    int64_t id = 0;
    for (; std::getline(vocab, line); ++id) {
        const size_t tab = line.find('\t');
        ASSERT_NE(tab, std::string::npos);
        std::string piece;
        for (size_t p = 0; p < tab;) {
            const bool meta = line.compare(p, 3, "\xE2\x96\x81") == 0; // "▁"
            piece += meta ? ' ' : line[p];
            p += meta ? 3 : 1;
        }
        if (id == 1 || id == 2) {
            piece.insert(piece.begin(), '\n');
            piece.push_back('\n');
        }
        ASSERT_LT(id, 512);
        EXPECT_EQ(l2c.piece(id), piece) << "id " << id;
        EXPECT_EQ(l2c.score(id), std::stof(line.substr(tab + 1))) << "id " << id;
    }
    EXPECT_EQ(id, 512);

    const SentencePieceTokenizer spm(test::sharedPath("models/stories260K/tok512.model"));
    EXPECT_EQ(spm.vocabSize(), 512);
    EXPECT_EQ(spm.bosId(), 1);
    const std::string story = readFile(test::sharedPath("models/stories260K/expected_greedy_t0.0_n256.txt"));
    // Plain text only: SentencePiece's normalizer also collapses runs of spaces, which run.c does not.
    std::vector<std::string> texts = { "Once upon a time", "The cat sat on the mat.", "Lily and Tom went to the park",
        "He said, \"No!\"", "A \xE4\xB8\xAD\xE4\xB8\xAD cat" /* byte fallback: each byte its own span */ };
    std::istringstream lines(story);
    while (std::getline(lines, line))
        if (!line.empty()) texts.push_back(line);
    ASSERT_GE(texts.size(), 8u);
    for (const std::string& t : texts) {
        const auto a = spm.encode(t, true), b = bin->encode(t, true);
        EXPECT_EQ(tokenIds(a), tokenIds(b)) << t;
        EXPECT_EQ(spm.decode(tokenIds(a)), bin->decode(tokenIds(b))) << t;
        expectSpansTile(t, a);
        for (const Token& tok : a) {
            if (tok.piece.rfind("<0x", 0) == 0) {
                EXPECT_EQ(tok.end - tok.begin, 1u) << tok.piece << " in " << t;
            }
        }
    }
}

// --- errors --------------------------------------------------------------------------------------------------

class TokenizerErrors : public ::testing::Test {
protected:
    std::string dir = test::makeTempDir("tokerr");
    void writeConfig(const std::string& json
        = R"({"model_type": "gpt2", "vocab_size": 50257, "n_layer": 0, "n_head": 1, "n_embd": 64})")
    {
        writeFile(dir + "/config.json", json);
    }
};

TEST_F(TokenizerErrors, MissingTokenizerNamesFolderAndFiles)
{
    writeConfig();
    const std::string msg = errorOf([&] { loadFolder(dir); });
    EXPECT_TRUE(contains(msg, dir)) << msg;
    EXPECT_TRUE(contains(msg, "tokenizer.json")) << msg;
    EXPECT_TRUE(contains(msg, "vocab.txt")) << msg;
    EXPECT_TRUE(contains(msg, "merges.txt")) << msg;
}

TEST_F(TokenizerErrors, MissingLlama2cTokenizer)
{
    fs::copy_file(test::sharedPath("models/stories260K/stories260K.bin"), dir + "/model.bin");
    const std::string msg = errorOf([&] { loadTokenizer(probeModel(dir + "/model.bin")); });
    EXPECT_TRUE(contains(msg, dir)) << msg;
    EXPECT_TRUE(contains(msg, "tokenizer.bin")) << msg;
    EXPECT_TRUE(contains(msg, "tok512.bin")) << msg;
}

TEST_F(TokenizerErrors, CorruptTokenizerBin)
{
    const std::string good = readFile(test::sharedPath("models/stories260K/tok512.bin"));
    fs::copy_file(test::sharedPath("models/stories260K/stories260K.bin"), dir + "/model.bin");
    const auto load = [&] { loadTokenizer(probeModel(dir + "/model.bin")); };

    writeFile(dir + "/tokenizer.bin", good.substr(0, good.size() - 3));
    std::string msg = errorOf(load);
    EXPECT_TRUE(contains(msg, dir + "/tokenizer.bin")) << msg;
    EXPECT_TRUE(contains(msg, "truncated")) << msg;

    std::string badLength = good;
    const int32_t huge = 1000;
    badLength.replace(4 + 4, 4, reinterpret_cast<const char*>(&huge), 4); // length of token 0
    writeFile(dir + "/tokenizer.bin", badLength);
    msg = errorOf(load);
    EXPECT_TRUE(contains(msg, "corrupt: token 0 has length 1000")) << msg;

    writeFile(dir + "/tokenizer.bin", "\xff\xff\xff\xff");
    EXPECT_TRUE(contains(errorOf(load), "not a llama2.c tokenizer.bin"));

    writeFile(dir + "/tokenizer.bin", good + good.substr(4, 20)); // more tokens than the model's vocab_size
    EXPECT_TRUE(contains(errorOf(load), "more than the model's 512 tokens"));
}

TEST_F(TokenizerErrors, TruncatedVocabularies)
{
    writeConfig();
    const std::string vocab = readFile(test::sharedPath("fixtures/hf-tiny/gpt2/vocab.json"));
    fs::copy_file(test::sharedPath("fixtures/hf-tiny/gpt2/merges.txt"), dir + "/merges.txt");

    writeFile(dir + "/vocab.json", vocab.substr(0, vocab.size() / 2));
    std::string msg = errorOf([&] { loadFolder(dir); });
    EXPECT_TRUE(contains(msg, dir + "/vocab.json: malformed JSON")) << msg;

    // A complete JSON object missing the later tokens: merges then refer to pieces that are not there.
    auto j = nlohmann::json::parse(vocab);
    for (auto it = j.begin(); it != j.end();)
        it = it.value().get<int64_t>() >= 260 ? j.erase(it) : std::next(it);
    writeFile(dir + "/vocab.json", j.dump());
    msg = errorOf([&] { loadFolder(dir); });
    EXPECT_TRUE(contains(msg, dir + "/merges.txt: merge ")) << msg;
    EXPECT_TRUE(contains(msg, "not in the vocabulary")) << msg;

    fs::remove(dir + "/vocab.json");
    fs::remove(dir + "/merges.txt");
    writeFile(dir + "/vocab.txt", "[PAD]\nthe\ndog\n");
    msg = errorOf([&] { loadFolder(dir); });
    EXPECT_TRUE(contains(msg, dir + "/vocab.txt")) << msg;
    EXPECT_TRUE(contains(msg, "[UNK]")) << msg;
}

TEST_F(TokenizerErrors, TokenizerLargerThanModelVocab)
{
    writeConfig(R"({"model_type": "gpt2", "vocab_size": 100, "n_layer": 0, "n_head": 1, "n_embd": 64})");
    fs::copy_file(test::sharedPath("fixtures/hf-tiny/gpt2/vocab.json"), dir + "/vocab.json");
    fs::copy_file(test::sharedPath("fixtures/hf-tiny/gpt2/merges.txt"), dir + "/merges.txt");
    const std::string msg = errorOf([&] { loadFolder(dir); });
    EXPECT_TRUE(contains(msg, "the tokenizer has 300 tokens but the model")) << msg;
}

TEST_F(TokenizerErrors, UnsupportedTokenizerJson)
{
    writeConfig();
    writeFile(dir + "/tokenizer.json", R"({"model": {"type": "Unigram", "vocab": []}})");
    const std::string msg = errorOf([&] { loadFolder(dir); });
    EXPECT_TRUE(contains(msg, dir + "/tokenizer.json: model type 'Unigram' is not supported")) << msg;
}

TEST_F(TokenizerErrors, TokenIdsThatAreNotIntegersAreRefusedByName)
{
    // nlohmann's get<int64_t> casts a float: 1.5 became id 1 silently, and 1e300, outside int64, was undefined
    // behaviour (what fuzz_tokenizer's UBSan reports).
    const std::string path = dir + "/tokenizer.json";
    const auto errorWith = [&](const std::string& added, const std::string& post) {
        writeFile(path,
            R"({"pre_tokenizer": {"type": "ByteLevel"}, "added_tokens": [)" + added
                + R"(], "model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}, "post_processor": )" + post
                + "}");
        return errorOf([&] { loadTokenizerJson(path, {}); });
    };
    std::string msg = errorWith(R"({"id": 1.5, "content": "b"})", "null");
    EXPECT_TRUE(contains(msg, path + ": an added token's id is the number 1.5, not an integer id")) << msg;
    msg = errorWith("", R"({"type": "RobertaProcessing", "sep": ["b", 1e300], "cls": ["a", 0]})");
    EXPECT_TRUE(contains(msg, path + ": RobertaProcessing's sep id is the number 1e+300, not an integer id")) << msg;
    const std::string tmpl = R"({"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A"}},
        {"SpecialToken": {"id": "b"}}], "special_tokens": {"b": {"ids": )";
    msg = errorWith("", tmpl + "[1e300]}}}");
    EXPECT_TRUE(contains(msg, path + ": an id of special token 'b' is the number 1e+300, not an integer id")) << msg;
    msg = errorWith("", tmpl + "1}}}");
    EXPECT_TRUE(contains(msg, path + ": the ids of special token 'b' are the number 1, not a list")) << msg;
}

} // namespace
} // namespace attn
