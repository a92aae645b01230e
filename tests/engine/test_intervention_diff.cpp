// SPDX-License-Identifier: MIT
// What the GUI's Intervene tab shows: a list of ablations combined into one intervention, and its diff against the
// unmodified pass, equal to two whole runs (what `attnscope-cli ablate` writes); an empty list changes nothing.
#include "model_test_util.h"

#include "intervention/intervention_diff.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"

namespace attn::test {
namespace {

const std::string kDemo = std::string(AS_SOURCE_DIR) + "/resources/models/demo-stories-llama";

// A re-run and a whole run compute the changed layers on the same inputs with the same kernels (InterventionReuse);
// KL and probabilities then differ by float32 rounding of the logits only.
constexpr double kLogitsTolerance = 1e-5, kKlTolerance = 1e-6, kProbTolerance = 1e-6;

StepResult wholeRun(const DecoderModel& model, const std::vector<int64_t>& ids, const Intervention* intervention)
{
    ForwardOptions options;
    options.intervention = intervention;
    KvCache cache = model.newCache();
    return model.forward(cache, ids, options);
}

TEST(InterventionDiff, AblationsMultiplyIntoOneMaskAndMeansShareOneEdit)
{
    ModelConfig c;
    c.numLayers = 3;
    c.numHeads = 2;
    c.headDim = 4;
    const Intervention combined = combinedAblations({ { { { 1, 0 } }, AblationMode::Zero, 0.0f },
                                                        { { { 2, 1 }, { 1, 0 } }, AblationMode::Scale, 0.5f },
                                                        { { { 2, 1 } }, AblationMode::Scale, 3.0f } },
        c);
    EXPECT_EQ(combined.headMask.storage(), (std::vector<float> { 1, 1, 0, 1, 1, 1.5f }));
    EXPECT_FALSE(combined.editHeads) << "no mean ablation, no edit";
    const Intervention mean = combinedAblations({ { { { 2, 0 } }, AblationMode::Mean, 0.0f } }, c);
    EXPECT_TRUE(mean.editHeads);
    EXPECT_EQ(firstChangedLayer(mean, c.numLayers), 2);
    EXPECT_THROW(combinedAblations({ { { { 3, 0 } }, AblationMode::Zero, 0.0f } }, c), Error);
}

// On the demo decoder: zero ablation of 2.0 and mean ablation of 1.1 together, diffed from a ReusableRun, equal two
// whole runs; removing every ablation gives the unmodified pass back exactly (KL exactly 0).
TEST(InterventionDiff, DiffEqualsWholeRunsAndAnEmptyListChangesNothing)
{
    const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(kDemo));
    ASSERT_TRUE(model);
    std::vector<int64_t> ids;
    for (int64_t i = 0; i < 12; ++i)
        ids.push_back((i * 29 + 5) % model->config().vocabSize);
    const ReusableRun run(*model, ids, ForwardOptions {});
    const Intervention both = combinedAblations(
        { { { { 2, 0 } }, AblationMode::Zero, 0.0f }, { { { 1, 1 } }, AblationMode::Mean, 0.0f } }, model->config());
    int64_t layers = 0;
    const InterventionDiff diff = diffIntervention(run, both, 5, { [&](int64_t, int64_t) { return ++layers, true; }, {} });
    EXPECT_EQ(layers, model->config().numLayers - 1) << "re-run from layer 1";
    const StepResult clean = wholeRun(*model, ids, nullptr), changed = wholeRun(*model, ids, &both);
    EXPECT_LE(maxAbsDiff(diff.cleanLogits, clean.logits), kLogitsTolerance);
    EXPECT_LE(maxAbsDiff(diff.changedLogits, changed.logits), kLogitsTolerance);
    const Tensor kl = klPerRow(clean.logits, changed.logits);
    EXPECT_LE(maxAbsDiff(diff.kl, kl), kKlTolerance);
    EXPECT_GT(*std::max_element(kl.storage().begin(), kl.storage().end()), 1e-3) << "the ablation changes the output";
    const auto top = topTokens(changed.logits, 5);
    ASSERT_EQ(diff.changedTop.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
        EXPECT_EQ(diff.changedTop[i][0].id, top[i][0].id) << i;
        for (size_t r = 0; r < 5; ++r)
            EXPECT_NEAR(diff.changedTop[i][r].probability, top[i][r].probability, kProbTolerance) << i << " " << r;
    }
    ASSERT_EQ(diff.changedAttention.size(), changed.attention.size());
    EXPECT_LE(maxAbsDiff(diff.changedAttention[2], changed.attention[2]), kProbTolerance);

    const InterventionDiff none = diffIntervention(run, combinedAblations({}, model->config()), 5);
    EXPECT_EQ(none.changedLogits.storage(), none.cleanLogits.storage());
    for (const float v : none.kl.storage())
        EXPECT_EQ(v, 0.0f);
}

} // namespace
} // namespace attn::test
