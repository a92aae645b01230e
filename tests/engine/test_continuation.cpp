// SPDX-License-Identifier: MIT
// The changed continuation of the Intervene tab's diff on the bundled demo decoder: the cached greedy steps equal a
// loop that runs the whole sequence again for every token (with and without a head mask, and for a mean ablation,
// whose per-pass mean the cache could not keep), removing the copying heads breaks the copy, and the per-head
// attention change on hand-made rows.
#include "model_test_util.h"

#include "intervention/continuation.h"
#include "intervention/head_ablation.h"
#include "intervention/intervention_diff.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "session/sampler.h"
#include "tokenizer/tokenizer_loader.h"

namespace attn::test {
namespace {

const std::string kDemo = std::string(AS_SOURCE_DIR) + "/resources/models/demo-stories-llama";
const std::string kStory = "Ben went to the park. Ben said the magic words: gold wind frog lamp. Then he said again: "
                           "gold wind";

std::shared_ptr<const DecoderModel> demoDecoder()
{
    auto model = std::dynamic_pointer_cast<const DecoderModel>(std::shared_ptr<const Model>(loadModel(kDemo)));
    if (!model) throw Error(kDemo, "is not a decoder");
    return model;
}

/// Greedy decoding the slow way: every token runs the whole sequence on a fresh cache.
std::vector<int64_t> wholeSequenceGreedy(
    const DecoderModel& model, std::vector<int64_t> tokens, int64_t steps, const Intervention* intervention)
{
    ForwardOptions options;
    options.wantAttention = false;
    options.intervention = intervention;
    std::vector<int64_t> out;
    const int64_t vocab = model.config().vocabSize;
    for (int64_t s = 0; s < steps; ++s) {
        KvCache cache = model.newCache();
        const StepResult r = model.forward(cache, tokens, options);
        const int64_t t = argmax(r.logits.data() + (r.logits.dim(0) - 1) * vocab, vocab);
        out.push_back(t);
        tokens.push_back(t);
    }
    return out;
}

std::vector<int64_t> encode(const std::string& text)
{
    const auto tokenizer = loadTokenizer(probeModel(kDemo), "");
    std::vector<int64_t> ids;
    for (const Token& t : tokenizer->encode(text, true))
        ids.push_back(t.id);
    return ids;
}

// Greedy ids equal (the project's check for decoding): the cached steps and the whole-sequence passes differ only in
// how BLAS blocks rows, far below the demo's margins between its top two logits over these few tokens.
TEST(Continuation, CachedStepsEqualWholeSequencePasses)
{
    const auto model = demoDecoder();
    const std::vector<int64_t> ids = encode(kStory);
    const int64_t steps = 8;
    EXPECT_EQ(greedyContinuation(*model, ids, steps, -1, {}), wholeSequenceGreedy(*model, ids, steps, nullptr));
    for (const AblationMode mode : { AblationMode::Zero, AblationMode::Mean }) {
        const Intervention ablated = ablationIntervention({ { { 2, 0 }, { 2, 1 } }, mode, 0.0f }, model->config());
        ForwardOptions options;
        options.intervention = &ablated;
        EXPECT_EQ(
            greedyContinuation(*model, ids, steps, -1, options), wholeSequenceGreedy(*model, ids, steps, &ablated))
            << (mode == AblationMode::Zero ? "zero" : "mean");
    }
}

TEST(Continuation, RemovingTheCopyingHeadsBreaksTheCopy)
{
    const auto model = demoDecoder();
    const std::vector<int64_t> ids = encode(kStory), copy = encode(" frog lamp");
    const std::vector<int64_t> clean = greedyContinuation(*model, ids, 4, -1, {});
    ASSERT_GE(clean.size(), 2u);
    // The tokenizer's encode may start with BOS: compare with the span's last two ids.
    ASSERT_GE(copy.size(), 2u);
    EXPECT_EQ((std::vector<int64_t> { clean[0], clean[1] }),
        (std::vector<int64_t> { copy[copy.size() - 2], copy[copy.size() - 1] }))
        << "the unmodified demo copies the span";
    const Intervention ablated
        = ablationIntervention({ { { 2, 0 }, { 2, 1 }, { 2, 3 } }, AblationMode::Zero, 0.0f }, model->config());
    ForwardOptions options;
    options.intervention = &ablated;
    EXPECT_NE(greedyContinuation(*model, ids, 4, -1, options)[0], clean[0]);
    // The stop token ends the continuation after it.
    EXPECT_EQ(greedyContinuation(*model, ids, 4, clean[0], {}), std::vector<int64_t> { clean[0] });
}

TEST(Continuation, HeadChangeIsTheMeanTotalVariationOfRows)
{
    // One layer, three heads, two rows over two keys: unchanged, moved entirely, moved half way in one row.
    Tensor clean({ 3, 2, 2 }, { 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1 });
    Tensor changed({ 3, 2, 2 }, { 1, 0, 0, 1, 0, 1, 1, 0, 0.5f, 0.5f, 0, 1 });
    const Tensor change = attentionChangePerHead({ clean }, { changed });
    ASSERT_EQ(change.shape(), (Shape { 1, 3 }));
    EXPECT_FLOAT_EQ(change.data()[0], 0.0f);
    EXPECT_FLOAT_EQ(change.data()[1], 1.0f);
    EXPECT_FLOAT_EQ(change.data()[2], 0.25f);
    EXPECT_THROW(attentionChangePerHead({ clean }, { Tensor({ 3, 2, 3 }) }), Error);
}

} // namespace
} // namespace attn::test
