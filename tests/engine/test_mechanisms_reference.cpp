// SPDX-License-Identifier: MIT
// Every `attnscope-cli mechanisms` variant against an independent NumPy computation (tests/mechanisms/reference.py)
// from the q, k, v and parameters it wrote, on synthetic inputs, on real decoder heads (stories260K with RoPE and
// GQA, the hf-tiny GPT-2 and Llama fixtures) and on encoder heads (the hf-tiny BERT and ViT).
//
// Tolerances: both sides compute in float64 from the same float32 inputs and parameters (the engine rounds what it
// draws or fits to float32 before using it), so they differ by float64 rounding (~1e-13) plus the float32 storage of
// the results (half an ulp, 6e-8 relative). Probabilities (<= 1) are therefore held to 1e-6 absolute and outputs to
// 1e-6 relative to their largest magnitude; metrics recomputed from float64 values to 1e-6. Least-squares fits are
// compared through the scores they give, to 1e-4 of the largest score: the fitted parameters are rounded to float32
// and the fits may be ill-conditioned.
#include "mechanisms_test_util.h"

#include <algorithm>
#include <vector>

namespace attn {
namespace {

const std::vector<std::string>& variants()
{
    static const std::vector<std::string> all = { "exact", "unscaled", "general", "concat", "additive", "alibi",
        "window:1", "window:3", "longformer:2:0,5", "bigbird:3:1:1:7", "bigbird:2:0:2:11", "strided:3", "fixed:4:1",
        "fixed:3:3", "fixed:5:2", "padding:0,4", "padding:2", "lsh:4:5", "lsh:8:1", "linformer:4:3", "linformer:32:9",
        "performer:16:2", "performer:5:4", "flash:1:1", "flash:4:4", "flash:5:3", "flash:16:16", "flash:13:2" };
    return all;
}

struct Source {
    const char* name;
    std::string args; ///< what goes before --variant
};

class MechanismsReference : public ::testing::TestWithParam<std::tuple<int, std::string>> {
public:
    static std::vector<Source> sources()
    {
        return {
            { "synthetic", "--synthetic --tokens-count 13 --d-k 8 --seed 3" },
            { "stories260K",
                test::sharedPath("models/stories260K/stories260K.bin")
                    + " --tokens 1,403,407,261,378,426,65,442,381,284,12,268,30 --layer 2 --head 5" },
            { "gpt2",
                test::sharedPath("fixtures/hf-tiny/gpt2")
                    + " --tokens 5,17,42,99,3,250,8,61,120,7,33 --layer 1 "
                      "--head 2" },
            { "llama",
                test::sharedPath("fixtures/hf-tiny/llama")
                    + " --tokens 1,17,42,99,3,250,8,61,120,7,33,200 "
                      "--layer 0 --head 3" },
            // Encoders, through the q/k/v hook: bidirectional heads.
            { "bert",
                test::sharedPath("fixtures/hf-tiny/bert")
                    + " --tokens 2,99,100,101,102,4,104,99,105,106,18,3 --layer 1 --head 2" },
            { "vit",
                test::sharedPath("fixtures/hf-tiny/vit") + " --pixel-values "
                    + test::sharedPath("fixtures/hf-tiny/vit/golden/item0/pixel_values.npy") + " --layer 0 --head 1" },
        };
    }
};

TEST_P(MechanismsReference, MatchesNumPy)
{
    const auto& [sourceIndex, variant] = GetParam();
    const Source source = sources()[static_cast<size_t>(sourceIndex)];
    const std::string dir = test::runMechanismsCli(source.args, variant);
    test::expectMatchesReference(test::numpyReference(dir));
}

// Swin's shifted windows need a patch grid: the ViT fixture's 4 x 4 patches after [CLS], and synthetic input with a
// square number of tokens (6 x 6). reference.py replays Swin's own cyclic shift, window partition and region mask.
TEST(MechanismsReferenceSwin, MatchesSwinsShiftAndMask)
{
    const std::string vit = test::sharedPath("fixtures/hf-tiny/vit") + " --pixel-values "
        + test::sharedPath("fixtures/hf-tiny/vit/golden/item0/pixel_values.npy") + " --layer 1 --head 0";
    for (const char* variant : { "swin:2:0", "swin:2:1" }) {
        const std::string dir = test::runMechanismsCli(vit, variant);
        const nlohmann::json m = test::readJsonFile(dir + "/metrics.json");
        EXPECT_EQ(m["grid_rows"], 4);
        EXPECT_EQ(m["prefix_tokens"], 1);
        test::expectMatchesReference(test::numpyReference(dir));
    }
    for (const char* variant : { "swin:3:0", "swin:3:1", "swin:2:1", "swin:6:5" })
        test::expectMatchesReference(
            test::numpyReference(test::runMechanismsCli("--synthetic --tokens-count 36 --d-k 8 --seed 4", variant)));
}

// rope:THETA at the model's own base re-rotates the head as the model did (float64 angles instead of its float32
// ones: at these positions the angles agree to ~1e-6 rad), so it reproduces the exact attention; another base or no
// rotary changes it.
TEST(MechanismsReferenceRope, TheModelsOwnBaseGivesTheExactHead)
{
    const std::string stories = test::sharedPath("models/stories260K/stories260K.bin")
        + " --tokens 1,403,407,261,378,426,65,442,381,284,12,268,30 --layer 2 --head 5";
    auto kl = [&](const char* variant) {
        return test::readJsonFile(test::runMechanismsCli(stories, variant) + "/metrics.json")["kl_mean"].get<double>();
    };
    EXPECT_LE(kl("rope:10000"), 1e-9);
    EXPECT_GT(kl("rope:0"), 1e-3);
    EXPECT_GT(kl("rope:100"), 1e-3);
}

std::vector<std::string> modelVariants()
{
    std::vector<std::string> all = variants();
    // GQA pools a model layer's KV heads: stories260K and the Llama fixture have 4 and 2; GPT-2 4 (multi-head).
    all.insert(all.end(), { "gqa:1", "gqa:2", "rope:0", "rope:10000", "rope:500000", "rope:100" });
    return all;
}

INSTANTIATE_TEST_SUITE_P(
    Synthetic, MechanismsReference, ::testing::Combine(::testing::Values(0), ::testing::ValuesIn(variants())));
INSTANTIATE_TEST_SUITE_P(Models, MechanismsReference,
    ::testing::Combine(::testing::Values(1, 2, 3, 4, 5), ::testing::ValuesIn(modelVariants())), [](const auto& info) {
        std::string name
            = std::string(MechanismsReference::sources()[static_cast<size_t>(std::get<0>(info.param))].name) + "_"
            + std::get<1>(info.param);
        std::replace_if(
            name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
        return name;
    });

} // namespace
} // namespace attn
