// SPDX-License-Identifier: MIT
// `attnscope-cli ablate`, `patch` and `prune` on the bundled demo decoder: the files they write agree with each other
// and with `attention --head-mask`.
#include "model_test_util.h"

#include "intervention/output_diff.h"

namespace attn::test {
namespace {

const std::string kDemo = std::string(AS_SOURCE_DIR) + "/resources/models/demo-stories-llama";
const std::string kPrompt = "Sam said the magic words: moon tree fish rain. Then he said again: moon tree fish";

int cli(const std::string& args, std::string* out)
{
    return runCommand(cliPath() + " " + args + " --backend cpu", out);
}

nlohmann::json readJson(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// Zero ablation is the head mask: its logits equal `attention --head-mask` with that head at 0; kl.npy is the KL of
// the two logits files; the clean continuation copies the repeated span and removing the induction head changes it.
TEST(InterventionCli, AblateWritesTheDiffOfAHeadMaskRun)
{
    const std::string dir = makeTempDir("ablate"), masked = makeTempDir("ablate-mask");
    std::string out;
    ASSERT_EQ(
        cli("ablate " + kDemo + " --prompt '" + kPrompt + "' --heads 2.0,2.1 --max-new-tokens 2 --out " + dir, &out), 0)
        << out;
    Tensor mask({ 4, 4 });
    mask.storage().assign(16, 1.0f);
    mask.data()[8] = mask.data()[9] = 0.0f;
    writeNpy(dir + "/mask.npy", mask);
    ASSERT_EQ(cli("attention " + kDemo + " --prompt '" + kPrompt + "' --head-mask " + dir + "/mask.npy --out " + masked,
                  &out),
        0)
        << out;
    const Tensor clean = readNpy(dir + "/logits_clean.npy"), ablated = readNpy(dir + "/logits_ablated.npy");
    EXPECT_EQ(maxAbsDiff(ablated, readNpy(masked + "/logits.npy")), 0.0);
    EXPECT_LT(maxAbsDiff(readNpy(dir + "/kl.npy"), klPerRow(clean, ablated)), 1e-6);
    const nlohmann::json report = readJson(dir + "/topk.json");
    ASSERT_EQ(report["positions"].size(), size_t(clean.dim(0)));
    EXPECT_EQ(report["continuation"]["clean"][0]["text"], " rain");
    EXPECT_NE(report["continuation"]["ablated"][0]["text"], " rain");
    EXPECT_EQ(cli("ablate " + kDemo + " --prompt x --heads 2.0 --mode half --out " + dir, &out), 1) << out;
}

// --substitute runs the changed tokens: the ablated logits are those of `attention` on the substituted ids, the clean
// ones those of the original ids; a substitution outside the input is an error naming the position.
TEST(InterventionCli, AblateSubstitutesTokens)
{
    const std::string dir = makeTempDir("substitute"), plain = makeTempDir("substitute-plain");
    const std::string ids = "5,40,41,42,43,44,45", changed = "5,40,41,99,43,44,45";
    std::string out;
    ASSERT_EQ(cli("ablate " + kDemo + " --tokens " + ids + " --substitute '3=#99' --out " + dir, &out), 0) << out;
    ASSERT_EQ(cli("attention " + kDemo + " --tokens " + changed + " --out " + plain, &out), 0) << out;
    // The same forward of the same ids; `attention` may take another path to its logits (BLAS rounding only).
    EXPECT_LE(maxAbsDiff(readNpy(dir + "/logits_ablated.npy"), readNpy(plain + "/logits.npy")), 1e-5);
    const nlohmann::json report = readJson(dir + "/topk.json");
    EXPECT_EQ(report["positions"][3]["token"], 42);
    EXPECT_EQ(report["positions"][3]["ablated_token"], 99);
    EXPECT_EQ(report["positions"][2]["ablated_token"], 41);
    EXPECT_EQ(report["substitutions"][0]["position"], 3);
    const Tensor kl = readNpy(dir + "/kl.npy");
    EXPECT_LT(kl.data()[2], 1e-6); // causal: the positions before the substitution do not change
    EXPECT_GT(kl.data()[3], 1e-3);
    EXPECT_EQ(cli("ablate " + kDemo + " --tokens " + ids + " --substitute '7=#99' --out " + dir, &out), 1) << out;
    EXPECT_NE(out.find("position 7"), std::string::npos) << out;
}

// The vision branch of `attention` takes --head-mask too: the scaled head's probabilities are the unmasked ones times
// its factor in the first layer it touches (the layers after it see a changed input), the removed head's are 0.
TEST(InterventionCli, VisionAttentionTakesAHeadMask)
{
    const std::string vit = sharedPath("fixtures/hf-tiny/vit"), dir = makeTempDir("vit-mask");
    Tensor mask({ 2, 4 });
    mask.storage().assign(8, 1.0f);
    mask.data()[1] = 0.0f;
    mask.data()[2] = 0.5f;
    writeNpy(dir + "/mask.npy", mask);
    std::string out;
    ASSERT_EQ(cli("attention " + vit + " --pixel-values " + vit + "/golden/item0/pixel_values.npy --head-mask " + dir
                      + "/mask.npy --out " + dir,
                  &out),
        0)
        << out;
    const Tensor masked = readNpy(dir + "/attn.L0.npy"), plain = readNpy(vit + "/golden/item0/attentions.L00.npy");
    ASSERT_EQ(masked.shape(), plain.shape());
    const int64_t block = masked.numel() / 4;
    double removed = 0.0, scaled = 0.0, kept = 0.0;
    for (int64_t i = 0; i < block; ++i) {
        removed = std::max(removed, double(std::fabs(masked.data()[block + i])));
        scaled = std::max(scaled, double(std::fabs(masked.data()[2 * block + i] - 0.5f * plain.data()[2 * block + i])));
        kept = std::max(kept, double(std::fabs(masked.data()[i] - plain.data()[i])));
    }
    EXPECT_EQ(removed, 0.0);
    EXPECT_LT(scaled, 1e-5); // the fixture's attention tolerance
    EXPECT_LT(kept, 1e-5);
}

TEST(InterventionCli, PatchAndPruneWriteTheirGrids)
{
    const std::string dir = makeTempDir("patch"), pruned = makeTempDir("prune");
    std::string out;
    ASSERT_EQ(cli("patch " + kDemo + " --clean '" + kPrompt + "' --corrupted '"
                      + std::string("Sam said the magic words: moon tree fish lamp. Then he said again: moon tree fish")
                      + "' --answer ' rain' --wrong ' lamp' --out " + dir,
                  &out),
        0)
        << out;
    EXPECT_EQ(readNpy(dir + "/heads.npy").shape(), (Shape { 4, 4 }));
    const Tensor residual = readNpy(dir + "/residual.npy");
    ASSERT_EQ(residual.rank(), 2);
    EXPECT_NEAR(residual.data()[residual.numel() - 1], 1.0, 1e-4);
    std::ofstream(pruned + "/corpus.txt") << "Ben went to the park. Ben said the magic words: gold wind.\n\n"
                                          << "Then he said again: gold wind.\n";
    ASSERT_EQ(cli("prune " + kDemo + " --corpus " + pruned + "/corpus.txt --out " + pruned, &out), 0) << out;
    EXPECT_EQ(readNpy(pruned + "/importance.npy").shape(), (Shape { 4, 4 }));
    const nlohmann::json curve = readJson(pruned + "/curve.json");
    EXPECT_EQ(curve["inputs"], 2);
    EXPECT_EQ(curve["loss"].size(), 17u);
    EXPECT_EQ(curve["loss"][0].get<double>(), curve["unmodified_loss"].get<double>());
    ASSERT_EQ(curve["accuracy"].size(), 17u);
    for (const auto& share : curve["accuracy"]) { // a share of positions
        EXPECT_GE(share.get<double>(), 0.0);
        EXPECT_LE(share.get<double>(), 1.0);
    }
}

} // namespace
} // namespace attn::test
