// SPDX-License-Identifier: MIT
// Head masks (HF head_mask semantics) in the attention core and through whole decoders against the HF goldens.
#include "model_test_util.h"

#include "attention/attention.h"
#include "intervention/head_ablation.h"
#include "intervention/intervention.h"
#include "model/model_loader.h"
#include "session/session.h"

#include <random>

namespace attn::test {
namespace {

Tensor randomTensor(const Shape& shape, unsigned seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal;
    Tensor t(shape);
    for (float& v : t.storage())
        v = normal(rng);
    return t;
}

// GQA (4 query heads on 2 KV heads): each query head's probabilities and output are multiplied by its own factor,
// the other heads are untouched; a removed head is exactly 0.
TEST(InterventionMasks, CoreScalesEachQueryHeadAfterTheSoftmax)
{
    const Tensor q = randomTensor({ 4, 5, 8 }, 1), k = randomTensor({ 2, 5, 8 }, 2), v = randomTensor({ 2, 5, 8 }, 3);
    AttentionOptions plain;
    plain.mask.causal = true;
    const AttentionResult ref = multiHeadAttention(q, k, v, plain);
    const std::vector<float> scale { 1.0f, 0.0f, 0.5f, 2.0f };
    AttentionOptions masked = plain;
    masked.headScale = scale;
    const AttentionResult r = multiHeadAttention(q, k, v, masked);
    const int64_t block = 5 * 5, outBlock = 5 * 8;
    double probsErr = 0.0, outErr = 0.0;
    for (int64_t h = 0; h < 4; ++h) {
        for (int64_t i = 0; i < block; ++i)
            probsErr = std::max(probsErr,
                double(std::fabs(r.probs.data()[h * block + i] - scale[size_t(h)] * ref.probs.data()[h * block + i])));
        for (int64_t i = 0; i < outBlock; ++i)
            outErr = std::max(outErr,
                double(std::fabs(
                    r.output.data()[h * outBlock + i] - scale[size_t(h)] * ref.output.data()[h * outBlock + i])));
    }
    // The scale multiplies the probabilities before the value product, so the output differs by rounding only.
    EXPECT_EQ(probsErr, 0.0);
    EXPECT_LT(outErr, 1e-5);
    for (int64_t i = 0; i < outBlock; ++i)
        ASSERT_EQ(r.output.data()[outBlock + i], 0.0f);
    masked.headScale = std::span<const float>(scale.data(), 3);
    EXPECT_THROW(multiHeadAttention(q, k, v, masked), Error);
}

TEST(InterventionMasks, WrongShapedMaskIsAnError)
{
    const auto model = loadModel(sharedPath("fixtures/hf-tiny/gpt2-head-mask"));
    Intervention bad;
    bad.headMask = Tensor({ 3, 4 });
    ForwardOptions options;
    options.intervention = &bad;
    Session session(model, options);
    EXPECT_THROW(session.prefill({ 1, 2, 3 }), Error);
}

// BERT applies head masks but not head-output edits: asking for one is an error, not a silent no-op.
TEST(InterventionMasks, EditsOnAnEncoderAreAnError)
{
    const auto model = loadModel(sharedPath("fixtures/hf-tiny/bert-head-mask"));
    Intervention edit;
    edit.editHeads = [](int64_t, Tensor&) { };
    ForwardOptions options;
    options.intervention = &edit;
    Session session(model, options);
    try {
        session.prefill({ 2, 99, 3 });
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("only supported for decoders"), std::string::npos) << e.what();
    }
}

/// Greedy decoding with the KV cache under every case's mask: the ids equal HF's and each step's logits are within
/// the manifest's logits tolerance of HF's (computed there without a cache).
void expectGreedyGoldens(const std::string& name)
{
    const Fixture fx(name);
    const auto model = loadModel(fx.dir);
    const std::vector<int64_t> prompt = fx.ids("input_ids.npy");
    int cases = 0;
    for (const auto& c : fx.manifest["cases"]) {
        const std::string caseName = c["name"].get<std::string>();
        Intervention mask;
        mask.headMask = readNpy(fx.dir + "/" + c["mask_file"].get<std::string>());
        ForwardOptions options;
        options.wantAttention = false;
        options.intervention = &mask;
        Session session(model, options);
        auto r = session.prefill(prompt);
        const std::vector<int64_t> golden = fx.ids(caseName + "/greedy_ids.npy");
        const Tensor goldenLogits = fx.tensor(caseName + "/greedy_step_logits.npy");
        std::vector<int64_t> ids;
        double err = 0.0;
        for (size_t s = 0; s < golden.size(); ++s) {
            const Tensor last = rowsOf(r->logits, r->logits.dim(0) - 1, r->logits.dim(0));
            err = std::max(err, maxAbsDiff(last, rowsOf(goldenLogits, int64_t(s), int64_t(s) + 1)));
            const float* row = last.data();
            ids.push_back(std::max_element(row, row + last.dim(1)) - row);
            r = session.step(ids.back());
        }
        EXPECT_EQ(ids, golden) << name << " " << caseName;
        EXPECT_LT(err, fx.tolerance("logits")) << name << " " << caseName;
        ++cases;
    }
    EXPECT_EQ(cases, 4) << name;
}

TEST(InterventionMasks, Gpt2GreedyIdsEqualHfHeadMask)
{
    expectGreedyGoldens("gpt2-head-mask");
}
TEST(InterventionMasks, LlamaGqaGreedyIdsEqualHfHeadMask)
{
    expectGreedyGoldens("llama-head-mask");
}

// The session's derived attention rows (what the views read) are the masked ones, as the captured attention.
TEST(InterventionMasks, DerivedAttentionRowsAreMasked)
{
    const Fixture fx("gpt2-head-mask");
    const auto model = loadModel(fx.dir);
    Intervention mask;
    mask.headMask = readNpy(fx.dir + "/head_masks/scaled.npy");
    ForwardOptions options;
    options.intervention = &mask;
    Session session(model, options);
    const auto r = session.prefill(fx.ids("input_ids.npy"));
    const int64_t n = session.length();
    for (int64_t h = 0; h < 4; ++h) {
        const Tensor rows = session.attentionRows(0, h, 0, n);
        Tensor captured({ n, n });
        std::copy_n(r->attention[0].data() + h * n * n, n * n, captured.data());
        EXPECT_LT(maxAbsDiff(rows, captured), 1e-6) << "head " << h;
    }
}

TEST(InterventionMasks, HeadListsAndModesParse)
{
    ModelConfig c;
    c.numLayers = 4;
    c.numHeads = 4;
    EXPECT_EQ(parseHeads("2.0,3.1", c), (std::vector<HeadRef> { { 2, 0 }, { 3, 1 } }));
    EXPECT_THROW(parseHeads("4.0", c), Error);
    EXPECT_THROW(parseHeads("1", c), Error);
    EXPECT_THROW(parseHeads("1.x", c), Error);
    EXPECT_THROW(parseHeads("", c), Error);
    Ablation a;
    parseAblationMode("scale:0.25", a);
    EXPECT_EQ(a.mode, AblationMode::Scale);
    EXPECT_EQ(a.factor, 0.25f);
    parseAblationMode("mean", a);
    EXPECT_EQ(a.mode, AblationMode::Mean);
    EXPECT_THROW(parseAblationMode("scale:", a), Error);
    EXPECT_THROW(parseAblationMode("half", a), Error);
}

} // namespace
} // namespace attn::test
