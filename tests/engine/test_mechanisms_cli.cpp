// SPDX-License-Identifier: MIT
// `attnscope-cli mechanisms` as a contract: exact.npy is the model's own attention from `attention` for that head,
// the files and metrics.json keys the issue names are there, patterns follow their definitions at the edges, and bad
// requests fail with messages that name the problem.
#include "core/npy.h"
#include "mechanisms/sparse_patterns.h"
#include "mechanisms_test_util.h"

#include <cmath>
#include <filesystem>
#include <vector>

namespace attn {
namespace {

/// Largest |a - b| over head `head` of attn.L{layer}.npy [heads, T, T] and exact.npy [T, T].
double exactVersusAttention(const std::string& model, const std::string& tokens, int layer, int head)
{
    const std::string attnDir = test::makeTempDir("attention");
    std::string output;
    EXPECT_EQ(test::runCommand(test::cliPath() + " attention " + model + " --tokens " + tokens + " --backend cpu --out "
                      + attnDir + " 2>&1",
                  &output),
        0)
        << output;
    const std::string dir = test::runMechanismsCli(
        model + " --tokens " + tokens + " --layer " + std::to_string(layer) + " --head " + std::to_string(head),
        "exact");
    return test::headVersusExact(readNpy(attnDir + "/attn.L" + std::to_string(layer) + ".npy"), head, dir);
}

// The model computes in float32 (scores of magnitude up to ~20 rounded at ~1e-6 by its GEMM), the mechanisms in
// float64 from the same q and k: probabilities agree to a few 1e-7; 1e-5 leaves room for any CPU's kernels.
TEST(MechanismsCli, ExactIsTheModelsAttentionStories260K)
{
    EXPECT_LE(exactVersusAttention(test::sharedPath("models/stories260K/stories260K.bin"),
                  "1,403,407,261,378,426,65,442,381,284,12,268,30", 3, 6),
        1e-5);
}

TEST(MechanismsCli, ExactIsTheModelsAttentionGpt2)
{
    EXPECT_LE(exactVersusAttention(test::sharedPath("fixtures/hf-tiny/gpt2"), "5,17,42,99,3,250,8,61,120", 0, 1), 1e-5);
}

TEST(MechanismsCli, ExactIsTheModelsAttentionLlama)
{
    EXPECT_LE(exactVersusAttention(test::sharedPath("fixtures/hf-tiny/llama"), "1,17,42,99,3,250,8,61", 1, 2), 1e-5);
}

/// Largest |exact.npy - HF's attentions.L{layer}.npy [heads, T, T] head `head`| for a fixture's golden item 0.
double exactVersusGolden(const std::string& fixture, const std::string& input, int layer, int head)
{
    const std::string dir = test::sharedPath("fixtures/hf-tiny/" + fixture);
    const std::string out = test::runMechanismsCli(
        dir + " " + input + " --layer " + std::to_string(layer) + " --head " + std::to_string(head), "exact");
    return test::headVersusExact(
        readNpy(dir + "/golden/item0/attentions.L0" + std::to_string(layer) + ".npy"), head, out);
}

// Encoders (the q/k/v hook): exact.npy against HF transformers' eager attention at the manifests' tolerance (1e-5,
// the floor for an fp32 engine).
TEST(MechanismsCli, ExactIsHfAttentionBert)
{
    EXPECT_LE(exactVersusGolden("bert", "--tokens 2,99,100,101,102,4,104,99,105,106,18,3", 1, 3), 1e-5);
    EXPECT_LE(exactVersusGolden("bert", "--prompt 'The quick brown fox [MASK] over the lazy dog.'", 0, 1), 1e-5);
}

TEST(MechanismsCli, ExactIsHfAttentionVit)
{
    const std::string pixels = test::sharedPath("fixtures/hf-tiny/vit/golden/item0/pixel_values.npy");
    EXPECT_LE(exactVersusGolden("vit", "--pixel-values " + pixels, 1, 2), 1e-5);
    const std::string m = test::runMechanismsCli(
        test::sharedPath("fixtures/hf-tiny/vit") + " --pixel-values " + pixels + " --layer 0 --head 0", "window:2");
    EXPECT_FALSE(test::readJsonFile(m + "/metrics.json")["input"]["causal"].get<bool>());
}

// The learned position table (GPT-2 wpe, BERT position embeddings) as the cosine similarity of the input's rows,
// against NumPy reading the table from the safetensors file itself. Both compute in float64 from the same float32
// table; the result is stored as float32 (values <= 1): 1e-6.
TEST(MechanismsCli, LearnedPositionSimilarityMatchesNumPy)
{
    for (const auto& [fixture, tensor] : std::vector<std::pair<std::string, std::string>> {
             { "gpt2", "transformer.wpe.weight" }, { "bert", "bert.embeddings.position_embeddings.weight" } }) {
        const std::string dir = test::sharedPath("fixtures/hf-tiny/" + fixture);
        const std::string out = test::runMechanismsCli(dir + " --tokens 5,17,42,99,3,25,8 --layer 0 --head 0", "exact");
        std::string output;
        ASSERT_EQ(test::runCommand(test::pythonPath() + " " + AS_SOURCE_DIR + "/tests/mechanisms/learned_positions.py "
                          + dir + "/model.safetensors " + tensor + " " + out + " 2>&1",
                      &output),
            0)
            << output;
        const nlohmann::json r = nlohmann::json::parse(output);
        EXPECT_EQ(r["rows"], 7) << fixture;
        EXPECT_LE(r["err"].get<double>(), 1e-6) << fixture;
    }
    // Rotary models have no table.
    const std::string llama = test::runMechanismsCli(
        test::sharedPath("fixtures/hf-tiny/llama") + " --tokens 1,17,42 --layer 0 --head 0", "exact");
    EXPECT_FALSE(std::filesystem::exists(llama + "/learned_positions.npy"));
}

TEST(MechanismsCli, WritesTheContractFiles)
{
    const std::string dir = test::runMechanismsCli("--synthetic --tokens-count 9 --d-k 4 --seed 1", "flash:4:3");
    for (const char* f : { "q", "k", "v", "exact", "probs", "out", "exact_out", "running_max", "running_sum" })
        EXPECT_TRUE(std::filesystem::exists(dir + "/" + f + ".npy")) << f;
    const nlohmann::json m = test::readJsonFile(dir + "/metrics.json");
    for (const char* key :
        { "kl_mean", "mass_kept", "out_rel_err", "entropy_mean", "bytes_moved", "bytes_moved_standard" })
        EXPECT_TRUE(m.contains(key)) << key;
    EXPECT_LT(m["bytes_moved"].get<double>(), m["bytes_moved_standard"].get<double>());
    EXPECT_EQ(readNpy(dir + "/q.npy").shape(), (Shape { 9, 4 }));

    const std::string lin = test::runMechanismsCli("--synthetic --tokens-count 9 --d-k 4 --seed 1", "linformer:3:2");
    EXPECT_EQ(readNpy(lin + "/probs.npy").shape(), (Shape { 9, 3 }));
    EXPECT_EQ(readNpy(lin + "/E.npy").shape(), (Shape { 3, 9 }));
    const nlohmann::json lm = test::readJsonFile(lin + "/metrics.json");
    EXPECT_EQ(lm["reference"], "unmasked");
    EXPECT_TRUE(lm["notes"]["reference"].get<std::string>().find("unmasked") != std::string::npos);

    const nlohmann::json gm = test::readJsonFile(
        test::runMechanismsCli("--synthetic --tokens-count 9 --d-k 4 --seed 1", "additive") + "/metrics.json");
    EXPECT_TRUE(gm["notes"]["params"].get<std::string>().find("seeded random") != std::string::npos);
    EXPECT_TRUE(gm["notes"]["params"].get<std::string>().find("fitted by least squares") != std::string::npos);
}

TEST(MechanismsCli, SameSeedSameDrawsOtherSeedOthers)
{
    const std::string synthetic = "--synthetic --tokens-count 16 --d-k 4 --seed 2";
    const Tensor a = readNpy(test::runMechanismsCli(synthetic, "bigbird:2:1:2:5") + "/mask.npy");
    const Tensor b = readNpy(test::runMechanismsCli(synthetic, "bigbird:2:1:2:5") + "/mask.npy");
    const Tensor c = readNpy(test::runMechanismsCli(synthetic, "bigbird:2:1:2:6") + "/mask.npy");
    EXPECT_EQ(a.storage(), b.storage());
    EXPECT_NE(a.storage(), c.storage());
    const Tensor e1 = readNpy(test::runMechanismsCli(synthetic, "performer:8:1") + "/features.npy");
    const Tensor e2 = readNpy(test::runMechanismsCli(synthetic, "performer:8:2") + "/features.npy");
    EXPECT_NE(e1.storage(), e2.storage());
}

TEST(MechanismsPatterns, WindowEdges)
{
    const KeepMask causal = windowPattern(8, 3, true), both = windowPattern(8, 3, false);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
            EXPECT_EQ(causal(i, j) != 0, i - j >= 0 && i - j < 3) << i << "," << j;
            EXPECT_EQ(both(i, j) != 0, std::abs(i - j) < 3) << i << "," << j;
        }
    EXPECT_TRUE(causal(5, 3));
    EXPECT_FALSE(causal(5, 2));
    EXPECT_FALSE(causal(3, 4));
}

TEST(MechanismsPatterns, LongformerGlobalRowsAndColumns)
{
    const KeepMask keep = longformerPattern(10, 1, { 0, 6 }, false);
    for (int i = 0; i < 10; ++i) {
        EXPECT_TRUE(keep(i, 0) && keep(0, i) && keep(i, 6) && keep(6, i)) << i;
        EXPECT_TRUE(keep(i, i));
    }
    EXPECT_FALSE(keep(3, 4));
    EXPECT_EQ(keep.cast<int>().sum(), 10 + 2 * (2 * 10 - 1) - 2 - 2); // diagonal + two crosses, overlaps once each
}

TEST(MechanismsPatterns, SwinWindowsShiftAcrossTheGrid)
{
    // A [CLS] token and a 4 x 4 grid, windows of 2 x 2 shifted by 1: rows {0}, {1, 2}, {3} and the same for columns.
    const KeepMask keep = swinPattern({ 1, 4, 4 }, 2, 1);
    auto patch = [](int r, int c) { return 1 + 4 * r + c; };
    EXPECT_TRUE(keep(0, patch(3, 3)) && keep(patch(3, 3), 0)); // [CLS] global
    EXPECT_TRUE(keep(patch(1, 1), patch(2, 2)));
    EXPECT_FALSE(keep(patch(0, 0), patch(1, 1))); // unshifted, these would share a window
    EXPECT_FALSE(keep(patch(3, 3), patch(0, 0))); // the wrapped strips are masked apart, as Swin's mask does
    // [CLS] row and column (17 + 16) plus windows of 1 x 1, 1 x 2, 2 x 1 and 2 x 2 patches, each seeing itself whole:
    // sizes 1, 2, 1, 2, 4, 2, 1, 2, 1, squared and summed: 36.
    EXPECT_EQ(keep.cast<int>().sum(), 17 + 16 + 36);
}

TEST(MechanismsPatterns, StridedSeesTheLastSAndEverySth)
{
    const KeepMask keep = stridedPattern(12, 4, true);
    EXPECT_TRUE(keep(11, 8) && keep(11, 7) && keep(11, 3));
    EXPECT_FALSE(keep(11, 6));
    EXPECT_FALSE(keep(2, 3));
}

TEST(MechanismsCli, BadRequestsFailClearly)
{
    const std::string synthetic = "--synthetic --tokens-count 8 --d-k 4 --seed 1";
    test::expectMechanismsFails(synthetic + " --variant sparse:3", "unknown variant 'sparse:3'");
    test::expectMechanismsFails(synthetic + " --variant window:x", "not a non-negative integer");
    test::expectMechanismsFails(synthetic + " --variant window:0", "at least 1");
    test::expectMechanismsFails(synthetic + " --variant bigbird:2:1", "bigbird:W:G:R:SEED");
    test::expectMechanismsFails(synthetic + " --variant longformer:2:3,8", "global token 8 is outside the 8 tokens");
    test::expectMechanismsFails(synthetic + " --variant lsh:3:1", "BUCKETS must be even");
    test::expectMechanismsFails(synthetic + " --variant fixed:3:4", "C must be at most the block S");
    test::expectMechanismsFails(synthetic + " --variant fixed:3", "fixed:S:C");
    test::expectMechanismsFails(synthetic + " --variant padding:1,8", "padded position 8 is outside the 8 tokens");
    test::expectMechanismsFails(synthetic + " --variant gqa:2", "needs a model");
    test::expectMechanismsFails(synthetic + " --variant swin:2:1", "needs a patch grid");
    test::expectMechanismsFails(
        "--synthetic --tokens-count 9 --d-k 4 --seed 1 --variant swin:2:2", "shift S must be below the window W");
    test::expectMechanismsFails(synthetic + " --variant performer:100000:1", "must lie in [1, 4096]");
    test::expectMechanismsFails(
        "--synthetic --tokens-count 0 --d-k 4 --seed 1 --variant exact", "must each lie in [1, 4096]");
    test::expectMechanismsFails("--synthetic --d-k 4 --seed 1 --variant exact", "--tokens-count");
    const std::string stories = test::sharedPath("models/stories260K/stories260K.bin");
    test::expectMechanismsFails(
        stories + " --tokens 1,2,3 --layer 9 --head 0 --variant exact", "outside the model's 5 layers");
    test::expectMechanismsFails(
        stories + " --tokens 1,2,3 --layer 0 --head 0 --variant gqa:3", "G must divide the layer's 4 KV heads");
    const std::string marian = test::sharedPath("fixtures/hf-tiny/marian") + " --tokens 1,2,3 --head 0 --variant exact";
    test::expectMechanismsFails(marian + " --layer 0 --block middle", "expected encoder, decoder or cross");
    test::expectMechanismsFails(marian + " --layer 2 --block cross", "outside the model's 2 cross layers");
    test::expectMechanismsFails(stories + " --tokens 1,2,3 --layer 0 --head 0 --block cross --variant exact",
        "--block, --decoder-tokens and --features are for encoder-decoder models");
    test::expectMechanismsFails(
        test::sharedPath("fixtures/hf-tiny/vit") + " --layer 0 --head 0 --variant exact", "--image");
}

} // namespace
} // namespace attn
