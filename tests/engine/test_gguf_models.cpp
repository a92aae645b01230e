// SPDX-License-Identifier: MIT
// GGUF files as models: every fixture with goldens (float64 numpy forward over the weights as ggml dequantizes them)
// through the Llama forward, greedy ids, step-by-step against the full forward, and the tokenizers the files carry.
#include "io/gguf.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "model_test_util.h"
#include "tokenizer/gguf_tokenizer.h"
#include "tokenizer/llama2c_tokenizer.h"
#include "tokenizer/tokenizer_loader.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace attn {
namespace {

namespace fs = std::filesystem;

// README "Tolerances that make sense": a float32 engine against the float64 reference over the same weights.
constexpr double kAttentionTolerance = 1e-5;
constexpr double kLogitsTolerance = 1e-4;

int64_t argmax(const float* row, int64_t n)
{
    return std::max_element(row, row + n) - row;
}

struct GoldenCase {
    std::string gguf, golden;
};

std::vector<GoldenCase> goldenCases()
{
    std::vector<GoldenCase> cases;
    const fs::path root = test::sharedPath("fixtures/gguf");
    for (const auto& model : fs::directory_iterator(root)) {
        if (!fs::is_directory(model.path() / "golden")) continue;
        for (const auto& g : fs::directory_iterator(model.path() / "golden"))
            cases.push_back({ (model.path() / (g.path().filename().string() + ".gguf")).string(), g.path().string() });
    }
    std::sort(cases.begin(), cases.end(), [](const auto& a, const auto& b) { return a.gguf < b.gguf; });
    return cases;
}

TEST(GgufModels, EveryGoldenFileMatchesAttentionLogitsAndGreedyIds)
{
    const auto cases = goldenCases();
    ASSERT_EQ(cases.size(), 15u); // every file: 4 stories260K, 6 hf-tiny-llama, 5 kq256
    double worstAttention = 0, worstLogits = 0;
    for (const GoldenCase& c : cases) {
        SCOPED_TRACE(c.gguf);
        const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(c.gguf));
        ASSERT_TRUE(model);
        const std::vector<int64_t> ids = readNpyInts(c.golden + "/input_ids.npy");
        KvCache cache = model->newCache();
        const StepResult r = model->forward(cache, ids, {});
        double ea = 0;
        for (size_t l = 0; l < r.attention.size(); ++l) {
            char name[64];
            std::snprintf(name, sizeof name, "/attentions.L%02zu.npy", l);
            ea = std::max(ea, test::maxAbsDiff(r.attention[l], readNpy(c.golden + name)));
        }
        ASSERT_EQ(static_cast<int64_t>(r.attention.size()), model->config().numLayers);
        const double el = test::maxAbsDiff(r.logits, readNpy(c.golden + "/logits.npy"));
        std::printf("%s: attention %.2e logits %.2e\n", fs::path(c.gguf).filename().c_str(), ea, el);
        EXPECT_LE(ea, kAttentionTolerance);
        EXPECT_LE(el, kLogitsTolerance);
        worstAttention = std::max(worstAttention, ea);
        worstLogits = std::max(worstLogits, el);

        // Greedy continuation one step at a time on the same cache, against the goldens' full recomputes.
        const std::vector<int64_t> greedy = readNpyInts(c.golden + "/greedy_ids.npy");
        const Tensor stepLogits = readNpy(c.golden + "/greedy_step_logits.npy");
        const int64_t vocab = model->config().vocabSize;
        int64_t next = argmax(r.logits.data() + (r.logits.dim(0) - 1) * vocab, vocab);
        for (size_t i = 0; i < greedy.size(); ++i) {
            ASSERT_EQ(next, greedy[i]) << "greedy token " << i;
            ForwardOptions noAttention;
            noAttention.wantAttention = false;
            const StepResult s = model->forward(cache, { next }, noAttention);
            if (i + 1 < greedy.size()) {
                const Tensor want = test::rowsOf(stepLogits, static_cast<int64_t>(i) + 1, static_cast<int64_t>(i) + 2);
                EXPECT_LE(test::maxAbsDiff(s.logits, want), kLogitsTolerance) << "step " << i + 1;
            }
            next = argmax(s.logits.data(), vocab);
        }
    }
    std::printf("worst over %zu files: attention %.2e, logits %.2e\n", cases.size(), worstAttention, worstLogits);
}

TEST(GgufModels, TiedEmbeddingsAndTheDescription)
{
    const ModelSource kq = probeModel(test::sharedPath("fixtures/gguf/kq256/kq256-Q4_K.gguf"));
    EXPECT_EQ(kq.format, ModelFormat::Gguf);
    EXPECT_TRUE(kq.config.tieWordEmbeddings); // no output.weight
    EXPECT_EQ(kq.config.numKvHeads, 2);
    EXPECT_EQ(kq.config.headDim, 32);
    const ModelSource stories = probeModel(test::sharedPath("fixtures/gguf/stories260K/stories260K.gguf"));
    EXPECT_FALSE(stories.config.tieWordEmbeddings);
    EXPECT_EQ(stories.config.vocabSize, 512);
    EXPECT_EQ(stories.config.eosTokenId, 2);
    EXPECT_DOUBLE_EQ(stories.config.ropeTheta, 10000.0); // no key: llama.cpp's default
}

TEST(GgufModels, CliInfoListsTheStoredTypes)
{
    std::string out;
    ASSERT_EQ(
        test::runCommand(
            test::cliPath() + " info " + test::sharedPath("fixtures/gguf/stories260K/stories260K-Q8_0.gguf"), &out),
        0)
        << out;
    EXPECT_NE(out.find("\"format\": \"gguf\""), std::string::npos) << out;
    EXPECT_NE(out.find("\"q8_0\": 237056"), std::string::npos) << out; // manifest: every other 2-D weight
    EXPECT_NE(out.find("\"f16\": 55040"), std::string::npos) << out; // 5 x 172 x 64
    EXPECT_NE(out.find("\"num_tensors\": 48"), std::string::npos) << out;
}

TEST(GgufModels, VocabOnlyFilesDescribeButRefuseToRun)
{
    const std::string path = test::sharedPath("models/gpt2-bpe-tokenizer/ggml-vocab-gpt-2.gguf");
    EXPECT_EQ(probeModel(path).config.modelType, "gpt2");
    try {
        loadModel(path);
        ADD_FAILURE() << "a vocab-only file loaded as a model";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("vocab-only"), std::string::npos) << e.what();
    }
}

/// llama.cpp's tokenizer test files: strings separated by "\n__ggml_vocab_test__\n", one line of ids per string.
void expectReferenceTokenizations(const std::string& gguf)
{
    std::ifstream inp(gguf + ".inp"), out(gguf + ".out");
    const std::string texts((std::istreambuf_iterator<char>(inp)), {});
    const std::string sep = "\n__ggml_vocab_test__\n";
    const ModelSource source = probeModel(gguf);
    const auto tok = loadTokenizer(source);
    size_t begin = 0, count = 0;
    for (size_t end = texts.find(sep); end != std::string::npos;
         begin = end + sep.size(), end = texts.find(sep, begin)) {
        const std::string text = texts.substr(begin, end - begin);
        std::string line;
        std::getline(out, line);
        std::istringstream want(line);
        std::vector<int64_t> ids;
        for (int64_t id; want >> id;)
            ids.push_back(id);
        EXPECT_EQ(tokenIds(tok->encode(text, false)), ids) << "'" << text << "'";
        ++count;
    }
    EXPECT_GT(count, 30u);
}

TEST(GgufTokenizers, Gpt2VocabOnlyFileTokenizesLikeLlamaCppsReference)
{
    expectReferenceTokenizations(test::sharedPath("models/gpt2-bpe-tokenizer/ggml-vocab-gpt-2.gguf"));
}

TEST(GgufTokenizers, BertVocabOnlyFileTokenizesLikeLlamaCppsReference)
{
    expectReferenceTokenizations(test::sharedPath("models/bert-uncased-wordpiece-vocab/ggml-vocab-bert-bge.gguf"));
}

TEST(GgufTokenizers, ATokenTypeThatIsNoTypeIsRefusedByIndex)
{
    // The bge vocabulary's token types as float32 (element type 6, same width), the first one 1e30: converting it to an
    // integer was undefined behaviour. The array's header follows its length-prefixed key.
    std::ifstream in(
        test::sharedPath("models/bert-uncased-wordpiece-vocab/ggml-vocab-bert-bge.gguf"), std::ios::binary);
    std::string bytes { std::istreambuf_iterator<char>(in), {} };
    const std::string key = "tokenizer.ggml.token_type";
    const uint64_t keyLength = key.size();
    const size_t array = bytes.find(std::string(reinterpret_cast<const char*>(&keyLength), 8) + key) + 8 + key.size();
    const uint32_t float32 = 6;
    const float huge = 1e30f;
    std::memcpy(bytes.data() + array + 4, &float32, 4);
    std::memcpy(bytes.data() + array + 16, &huge, 4);
    const std::string path = test::makeTempDir("gguf-token-type") + "/bge.gguf";
    std::ofstream(path, std::ios::binary) << bytes;
    try {
        (void)loadGgufTokenizer(path);
        ADD_FAILURE() << "loaded";
    } catch (const Error& e) {
        EXPECT_NE(
            std::string(e.what()).find(path + ": tokenizer.ggml.token_type[0] = 1000000015047466219876688855040."),
            std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("is not a llama.cpp token type (0 to 6)"), std::string::npos) << e.what();
    }
}

TEST(GgufTokenizers, StoriesVocabEqualsItsLlama2cTokenizer)
{
    const auto gguf = loadGgufTokenizer(test::sharedPath("fixtures/gguf/stories260K/stories260K.gguf"));
    const Llama2cTokenizer bin(test::sharedPath("models/stories260K/tok512.bin"), 512);
    EXPECT_EQ(tokenIds(gguf->encode("Once upon a time")), (std::vector<int64_t> { 1, 403, 407, 261, 378 }));
    for (const std::string text : { "Once upon a time", "Lily and Ben's big red ball!\nThe end.", " two  spaces",
             "caf\xC3\xA9 \xF0\x9F\xA6\x99 \x01 {}", "" }) {
        const auto ids = tokenIds(gguf->encode(text));
        EXPECT_EQ(ids, tokenIds(bin.encode(text))) << text;
        EXPECT_EQ(gguf->decode(ids), bin.decode(ids)) << text;
    }
}

} // namespace
} // namespace attn
