// SPDX-License-Identifier: MIT
// Re-running from the first changed layer (ReusableRun) equals a full forward under the same intervention, runs only
// the layers from that one, and the attention effect's per-key numbers equal whole runs with that key hidden.
#include "model_test_util.h"

#include "intervention/attention_effect.h"
#include "intervention/head_ablation.h"
#include "intervention/layer_reuse.h"
#include "intervention/output_diff.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"

namespace attn::test {
namespace {

const std::string kDemo = std::string(AS_SOURCE_DIR) + "/resources/models/demo-stories-llama";

// Both sides run the same kernels on the same layer inputs; only BLAS threading could reorder a sum.
constexpr double kLogitsTolerance = 1e-5, kProbTolerance = 1e-6;

StepResult fullRun(const DecoderModel& model, const std::vector<int64_t>& ids, const Intervention& intervention)
{
    ForwardOptions options;
    options.intervention = &intervention;
    KvCache cache = model.newCache();
    return model.forward(cache, ids, options);
}

std::vector<int64_t> demoIds(const DecoderModel& model, int64_t n)
{
    std::vector<int64_t> ids;
    for (int64_t i = 0; i < n; ++i)
        ids.push_back((i * 37 + 11) % model.config().vocabSize);
    return ids;
}

TEST(InterventionReuse, FirstChangedLayer)
{
    Intervention none, mask, key, all, mean;
    EXPECT_EQ(firstChangedLayer(none, 4), 4);
    mask.headMask = Tensor({ 4, 2 }, { 1, 1, 1, 1, 1, 0.5f, 0, 1 });
    EXPECT_EQ(firstChangedLayer(mask, 4), 2);
    key.keyMasks.push_back({ { 3 }, { { 3, 0 }, { 1, 1 } } });
    EXPECT_EQ(firstChangedLayer(key, 4), 1);
    all.keyMasks.push_back({ { 3 }, {} });
    EXPECT_EQ(firstChangedLayer(all, 4), 0);
    ModelConfig config;
    config.numLayers = 4;
    config.numHeads = 2;
    config.headDim = 8;
    EXPECT_EQ(
        firstChangedLayer(ablationIntervention({ { { 3, 1 }, { 2, 0 } }, AblationMode::Mean, 0.0f }, config), 4), 2);
}

// On GPT-2 and the GQA Llama-layout demo: a head mask in layer 2, a key mask in layer 1 and a mean ablation in
// layer 3, each re-run from its layer, equal the full forward (logits and every layer's attention) and differ from
// the unmodified pass; only the layers from the changed one report progress.
TEST(InterventionReuse, RerunEqualsAFullForward)
{
    for (const std::string& path : { sharedPath("fixtures/hf-tiny/gpt2-head-mask"), kDemo }) {
        const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(path));
        ASSERT_TRUE(model) << path;
        const ModelConfig& c = model->config();
        ASSERT_GE(c.numLayers, 2) << path;
        const std::vector<int64_t> ids = demoIds(*model, 9);
        int64_t layersRun = 0;
        ForwardOptions options;
        options.layerDone = [&](int64_t, int64_t) { return ++layersRun, true; };
        const ReusableRun run(*model, ids, options);
        Intervention mask, key;
        const int64_t top = c.numLayers - 1;
        mask.headMask = headMaskWith({ { top, 1 } }, 0.0f, c);
        key.keyMasks.push_back({ { 2, 4 }, { { top - 1, 0 } } });
        const Intervention mean = ablationIntervention({ { { top, 0 } }, AblationMode::Mean, 0.0f }, c);
        using Case = std::pair<const Intervention*, int64_t>;
        for (const auto& [intervention, first] : { Case { &mask, top }, Case { &key, top - 1 }, Case { &mean, top } }) {
            layersRun = 0;
            const StepResult reused = run.rerun(*intervention, true);
            EXPECT_EQ(layersRun, c.numLayers - first) << path;
            const StepResult full = fullRun(*model, ids, *intervention);
            EXPECT_LE(maxAbsDiff(reused.logits, full.logits), kLogitsTolerance) << path << " from layer " << first;
            EXPECT_GT(maxAbsDiff(reused.logits, run.clean().logits), 1e-4) << path << ": nothing changed";
            ASSERT_EQ(reused.attention.size(), full.attention.size());
            for (size_t l = 0; l < full.attention.size(); ++l)
                EXPECT_LE(maxAbsDiff(reused.attention[l], full.attention[l]), kProbTolerance) << path << " " << l;
        }
    }
}

TEST(InterventionReuse, SpearmanCorrelation)
{
    const std::vector<float> up { 1, 2, 3, 4 }, down { 4, 3, 2, 1 }, tied { 1, 1, 2 }, ramp { 1, 2, 3 },
        flat { 2, 2, 2 };
    EXPECT_NEAR(spearmanCorrelation(up, up), 1.0, 1e-12);
    EXPECT_NEAR(spearmanCorrelation(up, down), -1.0, 1e-12);
    EXPECT_NEAR(spearmanCorrelation(tied, ramp), 1.5 / std::sqrt(3.0), 1e-12); // ranks 1.5, 1.5, 3 against 1, 2, 3
    EXPECT_TRUE(std::isnan(spearmanCorrelation(flat, ramp)));
    EXPECT_THROW(spearmanCorrelation(up, ramp), Error);
}

// Each effect is the log-probability drop of a whole run with that key hidden (from every head, or from one head
// with perHead), computed here from full forwards.
TEST(InterventionReuse, EffectsEqualWholeRunsWithTheKeyHidden)
{
    const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(kDemo));
    const std::vector<int64_t> ids = demoIds(*model, 8);
    const AttentionEffect e = attentionEffect(*model, ids, 6, true, ForwardOptions {});
    const std::vector<int64_t> prefix(ids.begin(), ids.begin() + 7);
    const auto logProb = [&](const Intervention& i) {
        const StepResult r = fullRun(*model, prefix, i);
        return logSoftmaxRows(rowsOf(r.logits, 6, 7))[0][size_t(e.prediction)];
    };
    EXPECT_NEAR(e.logProbability, logProb(Intervention {}), kLogitsTolerance);
    for (const int64_t j : { 0, 3, 6 }) {
        Intervention all, one;
        all.keyMasks.push_back({ { j }, {} });
        one.keyMasks.push_back({ { j }, { { 2, 1 } } });
        EXPECT_NEAR(e.effect.data()[j], e.logProbability - logProb(all), 1e-4) << j;
        EXPECT_NEAR(e.headEffect.data()[(2 * 4 + 1) * 7 + j], e.logProbability - logProb(one), 1e-4) << j;
    }
    EXPECT_EQ(e.attention.shape(), (Shape { 4, 4, 7 }));
    EXPECT_THROW(attentionEffect(*model, ids, 0, false, ForwardOptions {}), Error);
    EXPECT_THROW(attentionEffect(*model, ids, 8, false, ForwardOptions {}), Error);
}

} // namespace
} // namespace attn::test
