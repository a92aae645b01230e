// SPDX-License-Identifier: MIT
// runPrompt, the one path the main window and `attnscope-cli attention` run an input on: its derived attention equals
// the materialized attention of the same run (1e-6, as tiles against the matrix elsewhere) and HF's goldens (the
// manifest's tolerance), on fixtures with causal, GQA and sliding-window heads; the size rule and the head-mask rule
// decide which of the two a run is.
#include "intervention/intervention.h"
#include "model/model_loader.h"
#include "model_test_util.h"
#include "session/prompt_run.h"

#include <gtest/gtest.h>

#include <limits>

namespace attn {
namespace {

class PromptRunOn : public ::testing::TestWithParam<const char*> { };

TEST_P(PromptRunOn, DerivedAttentionEqualsTheMaterializedRunAndTheGoldens)
{
    const test::Fixture fx(GetParam());
    const std::shared_ptr<const Model> model = loadModel(fx.dir);
    const ModelConfig& c = model->config();
    const std::vector<int64_t> ids = fx.ids("input_ids.npy");
    const auto n = static_cast<int64_t>(ids.size());

    PromptOptions whole;
    whole.materializeBytes = std::numeric_limits<uint64_t>::max();
    const PromptRun materialized = runPrompt(model, ids, {}, whole);
    ASSERT_EQ(materialized.derived, nullptr);
    ASSERT_EQ(static_cast<int64_t>(materialized.result->attention.size()), c.numLayers);

    PromptOptions lean; // materializeBytes 0: derived whenever the model allows it
    lean.summarize = true;
    lean.tilesOnCpu = true;
    const PromptRun derived = runPrompt(model, ids, {}, lean);
    ASSERT_NE(derived.derived, nullptr);
    EXPECT_TRUE(derived.result->attention.empty()); // no matrix kept
    const double tolerance = fx.tolerance("attentions");
    for (int64_t l = 0; l < c.numLayers; ++l) {
        const Tensor& full = materialized.result->attention[static_cast<size_t>(l)];
        const Tensor golden = fx.tensor(fx.attentionFile(l));
        for (int64_t h = 0; h < c.numHeads; ++h) {
            SCOPED_TRACE("layer " + std::to_string(l) + " head " + std::to_string(h));
            EXPECT_TRUE(derived.derived->hasSummary(l, h)); // the forward summarized it
            const auto rows = derived.derived->rows(l, h, 0, n);
            ASSERT_EQ(rows->shape(), (Shape { n, n }));
            double fromRun = 0, fromGolden = 0;
            for (int64_t q = 0; q < n; ++q)
                for (int64_t k = 0; k < n; ++k) {
                    const double p = rows->data()[q * n + k];
                    fromRun = std::max(fromRun, std::fabs(p - full.data()[(h * n + q) * n + k]));
                    fromGolden = std::max(fromGolden, std::fabs(p - golden.data()[(h * n + q) * n + k]));
                }
            EXPECT_LE(fromRun, 1e-6);
            EXPECT_LE(fromGolden, tolerance);
        }
    }
    EXPECT_LE(test::maxAbsDiff(materialized.result->logits, fx.tensor("logits.npy")), fx.tolerance("logits"));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PromptRunOn, ::testing::Values("gpt2", "llama", "mistral"));

TEST(PromptRun, SizeAndHeadMaskDecideWhetherTheAttentionIsDerived)
{
    const test::Fixture fx("gpt2");
    const ModelConfig c = loadModel(fx.dir)->config();
    PromptOptions options;
    const uint64_t bytesAt64 = static_cast<uint64_t>(c.numLayers * c.numHeads) * 64 * 64 * sizeof(float);
    options.materializeBytes = bytesAt64;
    EXPECT_FALSE(derivesAttention(c, 64, options)); // exactly the bound: kept whole
    EXPECT_TRUE(derivesAttention(c, 65, options));
    Intervention mask;
    mask.headMask
        = Tensor({ c.numLayers, c.numHeads }, std::vector<float>(static_cast<size_t>(c.numLayers * c.numHeads), 1.0f));
    options.forward.intervention = &mask;
    std::string why;
    EXPECT_FALSE(derivesAttention(c, 65, options, &why));
    EXPECT_EQ(why, "a head mask");
}

} // namespace
} // namespace attn
