// SPDX-License-Identifier: MIT
// Key masks and token substitution: a hidden key gets exactly zero attention from the heads it is hidden from, whose
// rows are the unmasked ones renormalised over the keys left; nothing else changes in the layers it does not touch.
#include "model_test_util.h"

#include "intervention/input_edits.h"
#include "intervention/intervention.h"
#include "model/model_loader.h"
#include "session/session.h"

namespace attn::test {
namespace {

// Probabilities are float32 softmax outputs (<= 1); the renormalised reference divides float32 probabilities once
// more, and hiding the row's largest score moves the max subtraction: a few float32 epsilons of 1.
constexpr double kProbTolerance = 1e-6;

std::shared_ptr<const StepResult> prefill(
    const std::shared_ptr<const Model>& model, const std::vector<int64_t>& ids, const Intervention* intervention)
{
    ForwardOptions options;
    options.intervention = intervention;
    Session session(model, options);
    return session.prefill(ids);
}

/// Expects head h of `masked` [heads, n, n] to be head h of `clean` with the `hidden` columns set to 0 and every row
/// divided by the mass left (rows that see none of the hidden keys are unchanged).
void expectRenormalised(const Tensor& masked, const Tensor& clean, int64_t h, const std::vector<int64_t>& hidden)
{
    const int64_t n = clean.dim(1), k = clean.dim(2);
    for (int64_t q = 0; q < n; ++q) {
        const float* c = clean.data() + (h * n + q) * k;
        const float* m = masked.data() + (h * n + q) * k;
        double left = 1.0;
        for (const int64_t j : hidden)
            left -= c[j];
        for (int64_t j = 0; j < k; ++j) {
            if (std::find(hidden.begin(), hidden.end(), j) != hidden.end()) {
                ASSERT_EQ(m[j], 0.0f) << "head " << h << " row " << q << " key " << j;
                continue;
            }
            EXPECT_NEAR(m[j], c[j] / left, kProbTolerance) << "head " << h << " row " << q << " key " << j;
        }
    }
}

// GPT-2 and Llama with GQA (4 query heads on 2 KV heads): keys 1 and 3 hidden from one head of each KV group of the
// last layer. The lower layers and the other heads see exactly what they saw; the two heads' rows are renormalised.
TEST(InterventionKeyMasks, HiddenKeysGetZeroAttentionFromTheirHeadsOnly)
{
    for (const std::string name : { "gpt2-head-mask", "llama-head-mask" }) {
        const Fixture fx(name);
        const auto model = loadModel(fx.dir);
        const ModelConfig& c = model->config();
        const std::vector<int64_t> ids = fx.ids("input_ids.npy");
        const int64_t last = c.numLayers - 1;
        const std::vector<int64_t> hidden { 1, 3 };
        Intervention hide;
        hide.keyMasks.push_back({ hidden, { { last, 0 }, { last, c.numHeads - 1 } } });
        const auto clean = prefill(model, ids, nullptr), masked = prefill(model, ids, &hide);
        for (int64_t l = 0; l < last; ++l)
            EXPECT_LE(maxAbsDiff(masked->attention[size_t(l)], clean->attention[size_t(l)]), kProbTolerance)
                << name << " layer " << l;
        const Tensor &m = masked->attention[size_t(last)], &a = clean->attention[size_t(last)];
        for (int64_t h = 0; h < c.numHeads; ++h)
            expectRenormalised(m, a, h, h == 0 || h == c.numHeads - 1 ? hidden : std::vector<int64_t> {});
        EXPECT_GT(maxAbsDiff(masked->logits, clean->logits), 1e-4) << name << ": the mask changed nothing";
    }
}

// Hidden from every head: already layer 0's rows are renormalised in all heads, and a later decode step (its query
// row appended through the KV cache) does not see the key either.
TEST(InterventionKeyMasks, AllHeadsMaskCoversEveryLayerAndLaterSteps)
{
    const Fixture fx("llama-head-mask");
    const auto model = loadModel(fx.dir);
    const std::vector<int64_t> ids = fx.ids("input_ids.npy");
    Intervention hide;
    hide.keyMasks.push_back({ { 2 }, {} });
    ForwardOptions options;
    options.intervention = &hide;
    Session session(model, options);
    const auto masked = session.prefill(ids);
    const auto clean = prefill(model, ids, nullptr);
    for (int64_t h = 0; h < model->config().numHeads; ++h)
        expectRenormalised(masked->attention[0], clean->attention[0], h, { 2 });
    const auto step = session.step(ids[0]);
    const int64_t keys = static_cast<int64_t>(ids.size()) + 1;
    for (const Tensor& layer : step->attention)
        for (int64_t h = 0; h < model->config().numHeads; ++h) {
            EXPECT_EQ(layer.data()[h * keys + 2], 0.0f);
            double sum = 0.0;
            for (int64_t j = 0; j < keys; ++j)
                sum += layer.data()[h * keys + j];
            EXPECT_NEAR(sum, 1.0, kProbTolerance);
        }
}

TEST(InterventionKeyMasks, BadMasksAreErrors)
{
    const auto gpt2 = loadModel(sharedPath("fixtures/hf-tiny/gpt2-head-mask"));
    Intervention negative, outside;
    negative.keyMasks.push_back({ { -1 }, {} });
    outside.keyMasks.push_back({ { 0 }, { { 0, 99 } } });
    EXPECT_THROW(prefill(gpt2, { 1, 2, 3 }, &negative), Error);
    EXPECT_THROW(prefill(gpt2, { 1, 2, 3 }, &outside), Error);
    // BERT does not apply key masks: an error, not a silent no-op.
    const auto bert = loadModel(sharedPath("fixtures/hf-tiny/bert-head-mask"));
    Intervention hide;
    hide.keyMasks.push_back({ { 1 }, {} });
    EXPECT_THROW(prefill(bert, { 2, 99, 3 }, &hide), Error);
}

TEST(InterventionKeyMasks, PositionListsParse)
{
    EXPECT_EQ(parseKeyPositions("3,5:8,4", 10), (std::vector<int64_t> { 3, 4, 5, 6, 7 }));
    EXPECT_EQ(parseKeyPositions("0", 1), (std::vector<int64_t> { 0 }));
    for (const std::string bad : { "", "5:5", "a", "10", "2:11", "-1", "1,,2", "3:1" })
        EXPECT_THROW(parseKeyPositions(bad, 10), Error) << bad;
}

TEST(InterventionKeyMasks, TokensAreSubstituted)
{
    EXPECT_EQ(substituteTokens({ 5, 6, 7 }, { { 0, 9 }, { 2, 1 } }, 10), (std::vector<int64_t> { 9, 6, 1 }));
    EXPECT_THROW(substituteTokens({ 5, 6 }, { { 2, 1 } }, 10), Error);
    EXPECT_THROW(substituteTokens({ 5, 6 }, { { 0, 10 } }, 10), Error);
    EXPECT_THROW(substituteTokens({ 5, 6 }, { { 0, 1 }, { 0, 2 } }, 10), Error);
}

} // namespace
} // namespace attn::test
