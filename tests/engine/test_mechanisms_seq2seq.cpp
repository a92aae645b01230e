// SPDX-License-Identifier: MIT
// `attnscope-cli mechanisms` on encoder-decoder heads (--block encoder|decoder|cross): exact.npy is the head's
// attention from `attention` and from HF transformers' goldens, T5's relative position bias included, and the
// variants follow their NumPy definitions on these heads (tests/mechanisms/reference.py reads position_bias.npy).
//
// Tolerances: against `attention` (the same float32 engine), the derived-attention 1e-5: the mechanisms recompute the
// softmax in float64 from the float32 q, k the model scored, a few 1e-7 apart. Against HF, each fixture manifest's
// suggested max_abs_diff for that attention (1e-5; 2e-5 for T5's decoder and cross-attention). The NumPy checks
// hold test::expectMatchesReference's bounds (both sides float64 from the same float32 inputs: 1e-6).
#include "mechanisms_test_util.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

namespace attn {
namespace {

constexpr double kDerivedTol = 1e-5;

std::string fixture(const std::string& name)
{
    return test::sharedPath("fixtures/hf-tiny/" + name);
}

std::string twoDigits(int layer)
{
    return (layer < 10 ? "0" : "") + std::to_string(layer);
}

struct Seq2SeqCase {
    std::string model; ///< fixture folder name
    std::string source; ///< the source option as `attention` takes it
    std::string decoderTokens;
};

const Seq2SeqCase kMarian { "marian", "--tokens 36,29,1,93,60,95,99,77,0", "127,54,77,46,41" };
const Seq2SeqCase kBart { "bart", "--tokens 0,125,23,56,125,116,49,22,119,2", "2,0,13,23,101,34" };
const Seq2SeqCase kT5 { "t5", "--tokens 116,52,14,40,103,87,52,21,44,1", "0,101,53,13,34,48" };

std::string headArgs(const Seq2SeqCase& c, const std::string& block, int layer, int head)
{
    return fixture(c.model) + " " + c.source + " --decoder-tokens " + c.decoderTokens + " --block " + block
        + " --layer " + std::to_string(layer) + " --head " + std::to_string(head);
}

/// |exact.npy - golden/item0/<golden>.L<layer>.npy[head]|.
double versusGolden(const Seq2SeqCase& c, const std::string& block, const std::string& golden, int layer, int head)
{
    const std::string dir = test::runMechanismsCli(headArgs(c, block, layer, head), "exact");
    return test::headVersusExact(
        readNpy(fixture(c.model) + "/golden/item0/" + golden + ".L" + twoDigits(layer) + ".npy"), head, dir);
}

TEST(MechanismsSeq2Seq, ExactIsTheAttentionCommandsHead)
{
    for (const Seq2SeqCase& c : { kMarian, kBart, kT5 }) {
        const std::string attnDir = test::makeTempDir("attention");
        std::string output;
        ASSERT_EQ(test::runCommand(test::cliPath() + " attention " + fixture(c.model) + " " + c.source
                          + " --decoder-tokens " + c.decoderTokens + " --backend cpu --out " + attnDir + " 2>&1",
                      &output),
            0)
            << output;
        for (const auto& [block, file] : std::vector<std::pair<std::string, std::string>> {
                 { "encoder", "enc_attn" }, { "decoder", "dec_attn" }, { "cross", "cross" } })
            for (int layer = 0; layer < 2; ++layer) {
                const int head = (layer + 1) % 4;
                const std::string dir = test::runMechanismsCli(headArgs(c, block, layer, head), "exact");
                EXPECT_LE(test::headVersusExact(
                              readNpy(attnDir + "/" + file + ".L" + std::to_string(layer) + ".npy"), head, dir),
                    kDerivedTol)
                    << c.model << " " << block << " L" << layer << " H" << head;
            }
    }
}

TEST(MechanismsSeq2Seq, ExactIsHfAttentionMarianAndBart)
{
    for (const Seq2SeqCase& c : { kMarian, kBart }) {
        EXPECT_LE(versusGolden(c, "encoder", "encoder_attentions", 1, 2), 1e-5) << c.model;
        EXPECT_LE(versusGolden(c, "decoder", "decoder_attentions", 0, 3), 1e-5) << c.model;
        EXPECT_LE(versusGolden(c, "cross", "cross_attentions", 1, 0), 1e-5) << c.model;
    }
}

// T5 scores q k^T (scale 1) plus a per-head relative position bias, bidirectional in the encoder and one-sided in
// the decoder: the exact head needs the bias, and a T5 head without it would not match.
TEST(MechanismsSeq2Seq, ExactIsHfAttentionT5WithItsPositionBias)
{
    EXPECT_LE(versusGolden(kT5, "encoder", "encoder_attentions", 0, 1), 1e-5);
    EXPECT_LE(versusGolden(kT5, "encoder", "encoder_attentions", 1, 3), 1e-5);
    EXPECT_LE(versusGolden(kT5, "decoder", "decoder_attentions", 1, 2), 2e-5);
    EXPECT_LE(versusGolden(kT5, "cross", "cross_attentions", 0, 1), 2e-5);
    const std::string dir = test::runMechanismsCli(headArgs(kT5, "encoder", 0, 1), "exact");
    const nlohmann::json m = test::readJsonFile(dir + "/metrics.json");
    EXPECT_EQ(m["input"]["scale"].get<double>(), 1.0);
    EXPECT_FALSE(m["input"]["causal"].get<bool>());
    const Tensor bias = readNpy(dir + "/position_bias.npy");
    EXPECT_EQ(bias.shape(), (Shape { 10, 10 }));
    // Without the bias the head's softmax differs from HF's by far more than the tolerance.
    const Tensor q = readNpy(dir + "/q.npy"), k = readNpy(dir + "/k.npy"), exact = readNpy(dir + "/exact.npy");
    double unbiasedGap = 0.0;
    for (int64_t i = 0; i < 10; ++i) {
        std::vector<double> s(10);
        for (int64_t j = 0; j < 10; ++j)
            for (int64_t x = 0; x < q.dim(1); ++x)
                s[static_cast<size_t>(j)] += static_cast<double>(q.at({ i, x })) * k.at({ j, x });
        const double top = *std::max_element(s.begin(), s.end());
        double sum = 0.0;
        for (double& v : s)
            sum += (v = std::exp(v - top));
        for (int64_t j = 0; j < 10; ++j)
            unbiasedGap = std::max(unbiasedGap, std::abs(s[static_cast<size_t>(j)] / sum - exact.at({ i, j })));
    }
    EXPECT_GT(unbiasedGap, 1e-2);
}

// The image captioner (ViT encoder, GPT-2 decoder with cross-attention) and Whisper (log-mel features).
TEST(MechanismsSeq2Seq, ExactIsHfAttentionCaptionerAndWhisper)
{
    const std::string vision = fixture("vision-encoder-decoder");
    const std::string caption = vision + " --pixel-values " + vision
        + "/golden/item0/pixel_values.npy --decoder-tokens 299,64,220,88,68,75,75,78,86,220,66,72,81,66,75,68,271,77,"
          "259,220,70,81,266,72,260,83";
    for (const auto& [block, golden] :
        std::vector<std::pair<std::string, std::string>> { { "cross", "cross_attentions" },
            { "decoder", "decoder_attentions" }, { "encoder", "encoder_attentions" } }) {
        const std::string dir = test::runMechanismsCli(caption + " --block " + block + " --layer 1 --head 2", "exact");
        EXPECT_LE(test::headVersusExact(readNpy(vision + "/golden/item0/" + golden + ".L01.npy"), 2, dir), 1e-5)
            << block;
    }
    const std::string whisper = fixture("whisper");
    const std::string dir = test::runMechanismsCli(whisper + " --features " + whisper
            + "/golden/item0/input_features.npy --decoder-tokens 3,75,33,69,15 --block cross --layer 0 --head 1",
        "exact");
    EXPECT_LE(test::headVersusExact(readNpy(whisper + "/golden/item0/cross_attentions.L00.npy"), 1, dir), 1e-5);
}

void expectMatchesNumPy(const std::string& args, const std::string& variant)
{
    SCOPED_TRACE(args + " " + variant);
    test::expectMatchesReference(test::numpyReference(test::runMechanismsCli(args, variant)));
}

// T5's encoder (bidirectional, biased) and decoder (causal, biased) heads and BART's decoder head through every kind
// of variant; cross-attention heads [T, S] through the scoring functions, the variants that fit a head whose queries
// and keys are different sequences.
/// tests/mechanisms/learned_positions.py on the fixture's model.safetensors (its own reader, not the engine's).
nlohmann::json checkpointVersus(
    const Seq2SeqCase& c, const std::string& tensor, const std::string& dir, const std::string& mode)
{
    std::string output;
    const int rc = test::runCommand(test::pythonPath() + " " + AS_SOURCE_DIR + "/tests/mechanisms/learned_positions.py "
            + fixture(c.model) + "/model.safetensors " + tensor + " " + dir + " " + mode + " 2>&1",
        &output);
    EXPECT_EQ(rc, 0) << output;
    return rc == 0 ? nlohmann::json::parse(output) : nlohmann::json::object();
}

// BART's learned positions (position p is row p + 2 of embed_positions) and T5's learned relative bias per bucket and
// head, as the Positions page shows them, against the checkpoint read by NumPy. The cosine similarity is float64 from
// the same float32 rows, stored as float32 (values <= 1): 1e-6. The T5 table is copied, not computed: exactly equal.
TEST(MechanismsSeq2Seq, LearnedPositionParametersAreTheCheckpoints)
{
    for (const auto& [block, stack, rows] : { std::tuple("encoder", "encoder", 10), std::tuple("decoder", "decoder", 6),
             std::tuple("cross", "decoder", 6) }) {
        SCOPED_TRACE(block);
        const std::string dir = test::runMechanismsCli(headArgs(kBart, block, 0, 1), "exact");
        const std::string tensor = std::string("model.") + stack + ".embed_positions.weight";
        const nlohmann::json r = checkpointVersus(kBart, tensor, dir, "2");
        ASSERT_TRUE(r.contains("err")) << r.dump();
        EXPECT_EQ(r["rows"], rows);
        EXPECT_LE(r["err"].get<double>(), 1e-6);
        // Without BART's offset the rows are other positions' (the check can tell).
        EXPECT_GT(checkpointVersus(kBart, tensor, dir, "0")["err"].get<double>(), 1e-3);
    }
    for (const char* block : { "encoder", "decoder" }) {
        SCOPED_TRACE(block);
        const std::string dir = test::runMechanismsCli(headArgs(kT5, block, 1, 2), "exact");
        const nlohmann::json r = checkpointVersus(kT5,
            std::string(block) + ".block.0.layer.0.SelfAttention.relative_attention_bias.weight", dir,
            "--relative-bias");
        ASSERT_TRUE(r.contains("shape")) << r.dump();
        EXPECT_EQ(r["shape"], nlohmann::json::array({ 32, 4 }));
        EXPECT_EQ(r["err"].get<double>(), 0.0);
    }
    // A cross-attention head has no relative bias, and T5 no learned absolute table.
    const std::string cross = test::runMechanismsCli(headArgs(kT5, "cross", 0, 0), "exact");
    EXPECT_FALSE(std::filesystem::exists(cross + "/relative_bias.npy"));
    EXPECT_FALSE(std::filesystem::exists(cross + "/learned_positions.npy"));
}

TEST(MechanismsSeq2Seq, VariantsMatchNumPyOnSelfAttentionHeads)
{
    for (const std::string& args :
        { headArgs(kT5, "encoder", 1, 0), headArgs(kT5, "decoder", 0, 2), headArgs(kBart, "decoder", 1, 1) })
        for (const char* variant : { "exact", "unscaled", "general", "additive", "alibi", "window:2",
                 "longformer:2:0,3", "bigbird:2:1:1:7", "strided:2", "lsh:4:5", "linformer:4:3", "performer:16:2",
                 "flash:4:3", "flash:5:5", "gqa:2", "rope:10000" }) {
            expectMatchesNumPy(args, variant);
        }
}

TEST(MechanismsSeq2Seq, ScoringFunctionsMatchNumPyOnCrossAttentionHeads)
{
    for (const std::string& args : { headArgs(kT5, "cross", 1, 3), headArgs(kMarian, "cross", 0, 2) })
        for (const char* variant : { "exact", "unscaled", "general", "concat", "additive" }) {
            expectMatchesNumPy(args, variant);
        }
    test::expectMechanismsFails(headArgs(kT5, "cross", 0, 0) + " --variant window:2", "runs on a self-attention head");
}

} // namespace
} // namespace attn
