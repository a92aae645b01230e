// SPDX-License-Identifier: MIT
// The image-to-text family (HF VisionEncoderDecoderModel, ViT + GPT-2 with cross-attention) beyond the shared
// encoder-decoder parity suite: the encoder's last hidden state, each greedy step's cross-attention rows against HF
// generate's, enc_to_dec_proj on a model with narrower encoder states (against a NumPy forward), and bad input.
#include "model/model_config.h"
#include "model/model_loader.h"
#include "model/vision_encoder_decoder.h"
#include "model_test_util.h"
#include "session/caption_run.h"
#include "session/sampler.h"

#include <gtest/gtest.h>

#include <cstring>

namespace attn {
namespace {

using test::maxAbsDiff;

std::shared_ptr<const VisionEncoderDecoderModel> loadCaptioner(const std::string& dir)
{
    auto model = std::dynamic_pointer_cast<const VisionEncoderDecoderModel>(loadModel(dir));
    if (!model) ADD_FAILURE() << dir << " did not load as an image-to-text model";
    return model;
}

EncoderInput pixelsOf(const Tensor& pixels)
{
    EncoderInput in;
    in.pixels = pixels;
    return in;
}

/// Row `step` of a [steps, heads, S] golden as [heads, 1, S].
Tensor stepRows(const Tensor& all, int64_t step)
{
    const int64_t H = all.dim(1), S = all.dim(2);
    Tensor row({ H, 1, S });
    std::memcpy(row.data(), all.data() + step * H * S, sizeof(float) * static_cast<size_t>(H * S));
    return row;
}

TEST(CaptionModel, DescribesItselfAsImageToText)
{
    const test::Fixture fx("vision-encoder-decoder");
    const auto model = loadCaptioner(fx.dir);
    ASSERT_TRUE(model);
    const ModelConfig& c = model->config();
    EXPECT_EQ(c.kind, ModelKind::ImageToText);
    EXPECT_EQ(c.numLayers, 2);
    EXPECT_EQ(model->decoderLayers(), 2);
    EXPECT_EQ(model->decoderHeads(), 4);
    EXPECT_EQ(c.vocabSize, 300);
    EXPECT_EQ(model->decoderStartToken(), 299);
    EXPECT_EQ(model->imageEncoder().patchGrid(32, 32).patches(), 64);
    EXPECT_EQ(model->imageEncoder().prefixTokens(), 1);
}

TEST(CaptionModel, CrossAttentionReadsTheEncodersLastHiddenState)
{
    const test::Fixture fx("vision-encoder-decoder");
    const auto model = loadCaptioner(fx.dir);
    ASSERT_TRUE(model);
    const auto enc = model->encode(pixelsOf(fx.tensor("pixel_values.npy")), {});
    EXPECT_LE(
        maxAbsDiff(enc->hidden, fx.tensor("encoder_last_hidden_state.npy")), fx.tolerance("encoder_hidden_states"));
}

// Each generated token's cross-attention over the image, as the GUI's strip shows it, is HF generate's row.
TEST(CaptionModel, EachGreedyStepsCrossAttentionMatchesHf)
{
    const test::Fixture fx("vision-encoder-decoder");
    const auto model = loadCaptioner(fx.dir);
    ASSERT_TRUE(model);
    const auto enc = model->encode(pixelsOf(fx.tensor("pixel_values.npy")), {});
    const std::vector<int64_t> golden = fx.ids("greedy_ids.npy");
    const Tensor rows[]
        = { fx.tensor("greedy_cross_attentions.L00.npy"), fx.tensor("greedy_cross_attentions.L01.npy") };
    KvCache cache = model->newDecoderCache();
    int64_t next = model->decoderStartToken();
    std::vector<int64_t> ids;
    for (size_t step = 0; step < golden.size(); ++step) {
        const Seq2SeqStepResult r = model->decode(*enc, cache, { next }, {});
        ASSERT_EQ(r.crossAttention.size(), 2u);
        for (size_t l = 0; l < 2; ++l)
            EXPECT_LE(maxAbsDiff(r.crossAttention[l], stepRows(rows[l], static_cast<int64_t>(step))),
                fx.tolerance("greedy_cross_attentions"))
                << "step " << step << " layer " << l;
        next = argmax(r.logits.data(), r.logits.dim(1));
        ids.push_back(next);
    }
    EXPECT_EQ(ids, golden);
}

// A ViT of width 24 under a GPT-2 of width 32: the decoder reads the image through enc_to_dec_proj. The reference is
// tools/make_caption_projection_model.py's float64 NumPy forward of the same float32 weights; the tolerances are
// the hf-tiny manifests' for an fp32 engine against such a reference (attention 1e-5, logits 1e-4).
TEST(CaptionModel, NarrowerEncoderIsProjectedToTheDecoderWidth)
{
    const std::string dir = test::makeTempDir("caption-projection");
    std::string output;
    ASSERT_EQ(test::runCommand(
                  test::pythonPath() + " " + AS_SOURCE_DIR + "/tools/make_caption_projection_model.py " + dir, &output),
        0)
        << output;
    const auto model = loadCaptioner(dir);
    ASSERT_TRUE(model);
    const auto enc = model->encode(pixelsOf(readNpy(dir + "/pixel_values.npy")), {});
    EXPECT_LE(maxAbsDiff(enc->hidden, readNpy(dir + "/encoder_last_hidden_state.npy")), 1e-4);
    ASSERT_EQ(enc->crossKeys.size(), 2u);
    EXPECT_EQ(enc->crossKeys[0].dim(2), 8); // decoder width 32 / 4 heads, not the encoder's 24 / 4
    KvCache cache = model->newDecoderCache();
    const Seq2SeqStepResult r = model->decode(*enc, cache, readNpyInts(dir + "/decoder_input_ids.npy"), {});
    for (size_t l = 0; l < 2; ++l) {
        const std::string L = std::to_string(l);
        EXPECT_LE(maxAbsDiff(r.crossAttention[l], readNpy(dir + "/cross.L" + L + ".npy")), 1e-5) << "layer " << l;
        EXPECT_LE(maxAbsDiff(r.attention[l], readNpy(dir + "/dec_attn.L" + L + ".npy")), 1e-5) << "layer " << l;
    }
    EXPECT_LE(maxAbsDiff(r.logits, readNpy(dir + "/logits.npy")), 1e-4);
}

// Back rewinds the sampler with the word, so stepping again draws the same words; a run with the seed repeats them.
TEST(CaptionRun, BackThenStepRedrawsTheSameSampledWords)
{
    const test::Fixture fx("vision-encoder-decoder");
    const auto model = loadCaptioner(fx.dir);
    ASSERT_TRUE(model);
    const auto enc = model->encode(pixelsOf(fx.tensor("pixel_values.npy")), {});
    CaptionOptions options;
    options.strategy = CaptionStrategy::Sample;
    options.sampling.temperature = 1.5f;
    options.sampling.topP = 0.0f;
    options.sampling.seed = 7;
    options.maxNewTokens = 12;
    CaptionRun run(model, enc, options);
    while (run.step()) { }
    const std::vector<int64_t> drawn = run.ids();
    ASSERT_EQ(drawn.size(), 12u);
    EXPECT_NE(drawn, fx.ids("greedy_ids.npy")); // at T = 1.5 the draws leave the greedy path
    for (int i = 0; i < 5; ++i)
        run.back();
    EXPECT_EQ(run.words().size(), 7u);
    while (run.step()) { }
    EXPECT_EQ(run.ids(), drawn);
    CaptionRun again(model, enc, options);
    while (again.step()) { }
    EXPECT_EQ(again.ids(), drawn);
    for (const CaptionWord& w : again.words()) {
        EXPECT_GT(w.probability, 0.0f);
        EXPECT_LE(w.probability, 1.0f);
    }
}

TEST(CaptionModel, ConfigErrorsNameTheFileAndTheProblem)
{
    const std::string vit = R"({"model_type": "vit", "hidden_size": 32, "num_hidden_layers": 1,
        "num_attention_heads": 4, "intermediate_size": 64, "image_size": 32, "patch_size": 4})";
    const std::string gpt2 = R"({"model_type": "gpt2", "n_embd": 32, "n_layer": 1, "n_head": 4, "vocab_size": 10)";
    const auto parse = [](const std::string& encoder, const std::string& decoder) {
        return parseHfConfigText(
            R"({"model_type": "vision-encoder-decoder", "encoder": )" + encoder + R"(, "decoder": )" + decoder + "}",
            "cfg.json");
    };
    const auto message = [&](const std::string& encoder, const std::string& decoder) {
        try {
            parse(encoder, decoder);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(parse(vit, gpt2 + R"(, "add_cross_attention": true})").kind, ModelKind::ImageToText);
    EXPECT_NE(message(vit, gpt2 + "}").find("add_cross_attention"), std::string::npos);
    EXPECT_NE(message(gpt2 + R"(, "add_cross_attention": true})", gpt2 + R"(, "add_cross_attention": true})")
                  .find("vit or deit encoder"),
        std::string::npos);
    EXPECT_NE(message(vit, gpt2 + R"(, "add_cross_attention": true, "cross_attention_hidden_size": 16})")
                  .find("cross_attention_hidden_size"),
        std::string::npos);
    EXPECT_NE(message("[]", gpt2 + "}").find("cfg.json"), std::string::npos);
}

TEST(CaptionModel, RejectsInputsThatAreNotAnImage)
{
    const test::Fixture fx("vision-encoder-decoder");
    const auto model = loadCaptioner(fx.dir);
    ASSERT_TRUE(model);
    EncoderInput tokens;
    tokens.tokens = { 1, 2 };
    EXPECT_THROW(model->encode(tokens, {}), Error);
    EXPECT_THROW(model->encode(pixelsOf(Tensor({ 1, 32, 32 })), {}), Error); // one channel, the model has three
    EXPECT_THROW(model->encode(pixelsOf(Tensor({ 3, 2, 2 })), {}), Error); // smaller than a patch
    const auto enc = model->encode(pixelsOf(fx.tensor("pixel_values.npy")), {});
    KvCache cache = model->newDecoderCache();
    EXPECT_THROW(model->decode(*enc, cache, { 300 }, {}), Error); // id == vocab size
    EXPECT_THROW(model->decode(*enc, cache, std::vector<int64_t>(65, 5), {}), Error); // > 64 positions
    EXPECT_EQ(cache.length(), 0);
}

} // namespace
} // namespace attn
