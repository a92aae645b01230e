// SPDX-License-Identifier: MIT
// Head importance and greedy pruning on the bundled demo decoder.
#include "model_test_util.h"

#include "analysis/copy_positions.h"
#include "analysis/head_importance.h"
#include "intervention/head_ablation.h"
#include "intervention/output_diff.h"
#include "model/kv_cache.h"
#include "model/model_loader.h"
#include "tokenizer/tokenizer_loader.h"

namespace attn::test {
namespace {

const std::string kDemo = std::string(AS_SOURCE_DIR) + "/resources/models/demo-stories-llama";

/// The first four held-out stories of the demo decoder (text it models well: loss about 0.7 nats per token).
std::vector<std::vector<int64_t>> demoCorpus()
{
    const auto tokenizer = loadTokenizer(probeModel(kDemo), "");
    std::ifstream in(kDemo + "/heldout_stories.jsonl");
    std::vector<std::vector<int64_t>> inputs;
    std::string line;
    while (inputs.size() < 4 && std::getline(in, line)) {
        std::vector<int64_t>& ids = inputs.emplace_back();
        for (const Token& t : tokenizer->encode(nlohmann::json::parse(line).at("text").get<std::string>()))
            ids.push_back(t.id);
    }
    if (inputs.size() != 4)
        throw Error(kDemo + "/heldout_stories.jsonl", "has fewer than 4 stories");
    return inputs;
}

std::shared_ptr<const DecoderModel> demoModel()
{
    return std::dynamic_pointer_cast<const DecoderModel>(std::shared_ptr<const Model>(loadModel(kDemo)));
}

/// What the scoring computed before it was vectorized and the passes reused: a full forward under `mask`, every row's
/// log-softmax in double, the actual next token's entry averaged over all positions of all inputs; and how many rows'
/// argmax (first on ties) is the next token, over all positions and over `copy` positions alone.
struct DirectScore {
    double logProb = 0.0, accuracy = 0.0, copyAccuracy = 0.0;
};

DirectScore directScore(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs, const Tensor& mask)
{
    Intervention intervention;
    intervention.headMask = mask;
    ForwardOptions options;
    options.wantAttention = false;
    options.intervention = mask.empty() ? nullptr : &intervention;
    double sum = 0.0;
    int64_t count = 0, correct = 0, copies = 0, copiesCorrect = 0;
    for (const std::vector<int64_t>& tokens : inputs) {
        KvCache cache = model.newCache();
        const Tensor logits = model.forward(cache, tokens, options).logits;
        const std::vector<std::vector<double>> logProbs = logSoftmaxRows(logits);
        const std::vector<bool> copy = copyPositions(tokens);
        const int64_t v = logits.dim(1);
        for (size_t i = 0; i + 1 < tokens.size(); ++i) {
            sum += logProbs[i][static_cast<size_t>(tokens[i + 1])];
            const float* row = logits.data() + static_cast<int64_t>(i) * v;
            const bool top = std::max_element(row, row + v) - row == tokens[i + 1];
            correct += top;
            copies += copy[i];
            copiesCorrect += copy[i] && top;
            ++count;
        }
    }
    return { sum / double(count), double(correct) / double(count), double(copiesCorrect) / double(copies) };
}

const char* kIssueStory
    = "Ben went to the park. Ben said the magic words: gold wind frog lamp. Then he said again: gold wind frog lamp";

TEST(CopyPositions, AreTheTokensOfASecondCopyWithTwoTokensOfContext)
{
    // 9 [1 2 3 4] 7 8 [1 2 3 4]: positions 8 and 9 predict 3 and 4 after (1, 2) and (2, 3), which occurred before
    // followed by them; position 7 predicts 2 after (8, 1), which did not occur before.
    const std::vector<bool> copy = copyPositions({ 9, 1, 2, 3, 4, 7, 8, 1, 2, 3, 4 });
    std::vector<bool> expected(10, false);
    expected[8] = expected[9] = true;
    EXPECT_EQ(copy, expected);
    EXPECT_TRUE(copyPositions({ 5 }).empty());
    // The same bigram followed by another token is not a copy.
    EXPECT_EQ(copyPositions({ 1, 2, 3, 1, 2, 4 }), std::vector<bool>(5, false));
}

// The exact definition, vectorized and reused: every head's importance equals full forwards with that head's mask
// scored in double. The new scoring sums float exponentials in blocks of 64 (each within about 1.1e-6 relative) where
// the old one summed double ones, so each log-probability may differ by a few 1e-6 nats and an importance, a
// difference of two means of them, by about 1e-5 at most; the reused layers are the same arithmetic as re-running them.
TEST(AtlasImportance, EveryHeadEqualsFullForwardsScoredInDouble)
{
    const auto model = demoModel();
    ASSERT_TRUE(model);
    const auto tokenizer = loadTokenizer(probeModel(kDemo), "");
    std::vector<std::vector<int64_t>> inputs = demoCorpus();
    inputs.resize(2);
    inputs.emplace_back();
    for (const Token& t : tokenizer->encode(kIssueStory))
        inputs.back().push_back(t.id);
    double reference = 0.0;
    const Tensor importance = headImportance(*model, inputs, {}, &reference);
    const ModelConfig& c = model->config();
    const double clean = directScore(*model, inputs, {}).logProb;
    EXPECT_NEAR(reference, clean, 1e-5);
    double spread = 0.0;
    for (int64_t l = 0; l < c.numLayers; ++l)
        for (int64_t h = 0; h < c.numHeads; ++h) {
            const double expected = clean - directScore(*model, inputs, headMaskWith({ { l, h } }, 0.0f, c)).logProb;
            EXPECT_NEAR(importance.data()[l * c.numHeads + h], expected, 1e-5) << "L" << l << ".H" << h;
            spread = std::max(spread, std::abs(expected));
        }
    EXPECT_GT(spread, 0.01) << "importances this small would make the comparison empty";
}

// Each step of the curve resumes from the previous one; it equals a full forward of its whole mask (the same bound as
// above for the loss; the argmax agrees on every position, as the resumed layers run the same arithmetic).
TEST(AtlasImportance, EveryCurveStepEqualsAFullForwardOfItsMask)
{
    const auto model = demoModel();
    ASSERT_TRUE(model);
    const auto tokenizer = loadTokenizer(probeModel(kDemo), "");
    std::vector<std::vector<int64_t>> inputs(1);
    for (const Token& t : tokenizer->encode(kIssueStory))
        inputs[0].push_back(t.id);
    const PruningCurve curve = greedyPruning(*model, inputs, headImportance(*model, inputs, {}), {});
    ASSERT_GT(curve.copyPositions, 0);
    ASSERT_EQ(curve.copyAccuracy.size(), curve.loss.size());
    std::vector<HeadRef> removed;
    for (size_t k = 0; k < curve.loss.size(); ++k) {
        if (k > 0) removed.push_back(curve.order[k - 1]);
        const DirectScore expected = directScore(*model, inputs, headMaskWith(removed, 0.0f, model->config()));
        EXPECT_NEAR(curve.loss[k], -expected.logProb, 1e-5) << k;
        EXPECT_DOUBLE_EQ(curve.accuracy[k], expected.accuracy) << k;
        EXPECT_DOUBLE_EQ(curve.copyAccuracy[k], expected.copyAccuracy) << k;
    }
    // The model copies the repeated span: every copy position right unmodified, and removing every head loses it.
    EXPECT_EQ(curve.copyAccuracy.front(), 1.0);
    EXPECT_LT(curve.copyAccuracy.back(), 1.0);
}

TEST(AtlasImportance, PruningCurveStartsAtTheUnmodifiedLossAndRises)
{
    const auto model = demoModel();
    ASSERT_TRUE(model);
    const auto inputs = demoCorpus();
    double reference = 0.0;
    const Tensor importance = headImportance(*model, inputs, {}, &reference);
    const PruningCurve curve = greedyPruning(*model, inputs, importance, {});
    const size_t heads = size_t(model->config().numLayers * model->config().numHeads);
    ASSERT_EQ(curve.loss.size(), heads + 1);
    ASSERT_EQ(curve.order.size(), heads);
    // A mask of ones multiplies every probability by exactly 1: the same numbers as no mask at all.
    EXPECT_EQ(curve.loss.front(), -reference);
    EXPECT_EQ(curve.removedShare.back(), 1.0);
    // Removing a head alone costs importance(head); the curve's first step is exactly that head's removal.
    const HeadRef least = curve.order.front();
    EXPECT_NEAR(
        curve.loss[1] - curve.loss[0], importance.data()[least.layer * model->config().numHeads + least.head], 1e-5);
    // Monotone within noise: the first heads removed have an importance of about zero, some slightly negative, and
    // removing one of them can lower the loss by a few thousandths of a nat (measured: 0.003 on these stories,
    // 0.0002 over 20 held-out stories); kNoise allows 0.01 against a total rise of about 1.7 nats.
    constexpr double kNoise = 0.01;
    for (size_t k = 1; k < curve.loss.size(); ++k)
        EXPECT_GE(curve.loss[k], curve.loss[k - 1] - kNoise) << "after removing " << k << " heads";
    EXPECT_GT(curve.loss.back(), curve.loss.front() + 1.0);
}

} // namespace
} // namespace attn::test
