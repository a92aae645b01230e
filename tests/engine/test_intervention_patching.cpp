// SPDX-License-Identifier: MIT
// Activation patching, mean ablation and the output diff on the bundled demo decoder.
#include "model_test_util.h"

#include "intervention/activation_patching.h"
#include "intervention/head_ablation.h"
#include "intervention/output_diff.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "tokenizer/tokenizer_loader.h"

namespace attn::test {
namespace {

const std::string kDemo = std::string(AS_SOURCE_DIR) + "/resources/models/demo-stories-llama";

std::shared_ptr<const DecoderModel> demoDecoder()
{
    auto model = std::dynamic_pointer_cast<const DecoderModel>(std::shared_ptr<const Model>(loadModel(kDemo)));
    if (!model) throw Error(kDemo, "is not a decoder");
    return model;
}

std::vector<int64_t> encode(const std::string& text, bool special = true)
{
    const auto tokenizer = loadTokenizer(probeModel(kDemo), "");
    std::vector<int64_t> ids;
    for (const Token& t : tokenizer->encode(text, special))
        ids.push_back(t.id);
    return ids;
}

// The logits at the last position depend on the residual stream after the last layer at that position alone, so
// patching it from the clean run restores exactly the clean logit difference; patching other positions of the last
// layer restores nothing, and a run without a patch is the corrupted run. 1e-4: the same rows through the same
// kernels, differing only where BLAS blocks the matrix products by row count.
TEST(InterventionPatching, LastLayerResidualRestoresAllAndNothingRestoresNone)
{
    const auto model = demoDecoder();
    PatchingSetup setup;
    // The demo's induction task: the word after "fish" in the repeat is copied from the first occurrence.
    setup.clean = encode("Sam said the magic words: moon tree fish rain. Then he said again: moon tree fish");
    setup.corrupted = encode("Sam said the magic words: moon tree fish lamp. Then he said again: moon tree fish");
    ASSERT_EQ(setup.clean.size(), setup.corrupted.size());
    setup.answer = encode(" rain", false).at(0);
    setup.wrong = encode(" lamp", false).at(0);
    const PatchingResult r = activationPatching(*model, setup, {});
    const int64_t L = model->config().numLayers, n = static_cast<int64_t>(setup.clean.size());
    ASSERT_EQ(r.residual.shape(), (Shape { L, n }));
    ASSERT_EQ(r.heads.shape(), (Shape { L, model->config().numHeads }));
    EXPECT_NE(r.cleanDifference, r.corruptedDifference);
    EXPECT_NEAR(r.residual.data()[(L - 1) * n + n - 1], 1.0, 1e-4);
    for (int64_t p = 0; p + 1 < n; ++p)
        EXPECT_NEAR(r.residual.data()[(L - 1) * n + p], 0.0, 1e-4) << "position " << p;
    // Positions before the first differing token hold equal activations in both runs: patching them is patching
    // nothing, which restores nothing.
    size_t first = 0;
    while (setup.clean[first] == setup.corrupted[first])
        ++first;
    ASSERT_GT(first, 0u);
    for (int64_t l = 0; l < L; ++l)
        for (int64_t p = 0; p < int64_t(first); ++p)
            EXPECT_NEAR(r.residual.data()[l * n + p], 0.0, 1e-4) << "layer " << l << " position " << p;
    // The one differing token carries the answer: its residual after layer 0 restores (nearly) everything, and the
    // induction heads of layer 2 (0 and 1) restore the most of any head.
    EXPECT_GT(r.residual.data()[first], 0.9);
    const int64_t H = model->config().numHeads;
    const float* best = std::max_element(r.heads.data(), r.heads.data() + r.heads.numel());
    EXPECT_EQ(best - r.heads.data(), 2 * H + 0);
    EXPECT_GT(r.heads.data()[2 * H + 1], 0.2);
}

TEST(InterventionPatching, PromptsOfDifferentLengthsAreAnError)
{
    const auto model = demoDecoder();
    PatchingSetup setup;
    setup.clean = { 1, 2, 3 };
    setup.corrupted = { 1, 2 };
    EXPECT_THROW(activationPatching(*model, setup, {}), Error);
}

// Mean ablation replaces the head's slice of the output projection's input at every position by the mean over the
// positions of the clean values; the other heads' slices keep their clean values.
TEST(InterventionPatching, MeanAblationReplacesTheHeadByItsMeanOverPositions)
{
    const auto model = demoDecoder();
    const std::vector<int64_t> tokens = encode("Ben went to the park. Ben said the magic words.");
    const int64_t n = static_cast<int64_t>(tokens.size()), dv = model->config().headDim;
    Tensor clean, ablated;
    Intervention recorder;
    recorder.editHeads = [&](int64_t l, Tensor& t) {
        if (l == 1) clean = t;
    };
    ForwardOptions options;
    options.intervention = &recorder;
    KvCache cache = model->newCache();
    model->forward(cache, tokens, options);

    Ablation a;
    a.heads = { { 1, 2 } };
    a.mode = AblationMode::Mean;
    Intervention mean = ablationIntervention(a, model->config());
    const auto edit = mean.editHeads;
    mean.editHeads = [&](int64_t l, Tensor& t) {
        edit(l, t);
        if (l == 1) ablated = t;
    };
    options.intervention = &mean;
    KvCache cache2 = model->newCache();
    model->forward(cache2, tokens, options);
    ASSERT_EQ(ablated.shape(), clean.shape());
    const int64_t width = clean.dim(1);
    for (int64_t col = 0; col < width; ++col) {
        double sum = 0.0;
        for (int64_t i = 0; i < n; ++i)
            sum += clean.data()[i * width + col];
        for (int64_t i = 0; i < n; ++i) {
            const float got = ablated.data()[i * width + col];
            if (col >= 2 * dv && col < 3 * dv)
                ASSERT_NEAR(got, sum / double(n), 1e-5) << "column " << col;
            else
                ASSERT_EQ(got, clean.data()[i * width + col]) << "column " << col;
        }
    }
}

TEST(InterventionPatching, KlIsZeroForEqualLogitsAndPositiveOtherwise)
{
    const Tensor a({ 2, 3 }, { 1.0f, 2.0f, 3.0f, 0.0f, 0.0f, 0.0f });
    const Tensor b({ 2, 3 }, { 1.0f, 2.0f, 3.0f, 0.0f, std::log(2.0f), 0.0f });
    const Tensor kl = klPerRow(a, b);
    EXPECT_EQ(kl.data()[0], 0.0f);
    // Uniform P against Q = (1, 2, 1) / 4: sum 1/3 ln((1/3) / q).
    const double expected = (2.0 * std::log((1.0 / 3) / 0.25) + std::log((1.0 / 3) / 0.5)) / 3.0;
    EXPECT_NEAR(kl.data()[1], expected, 1e-6);
    const auto top = topTokens(b, 2);
    EXPECT_EQ(top[0][0].id, 2);
    EXPECT_EQ(top[1][0].id, 1);
    EXPECT_NEAR(top[1][0].probability, 0.5, 1e-6);
    EXPECT_THROW(klPerRow(a, Tensor({ 3, 2 })), Error);
}

} // namespace
} // namespace attn::test
