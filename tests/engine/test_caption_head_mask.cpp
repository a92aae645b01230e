// SPDX-License-Identifier: MIT
// Captioning under a head mask (CaptionOptions::headMask, encodeImage): the steps of CaptionRun apply the decoder rows
// of the mask as greedyDecode does with the same intervention, encodeImage applies the encoder rows, a mask of ones is
// the unmasked caption bit for bit, and a removed cross-attention head's weights are exactly zero in every word. With
// the unmasked encoding a run also keeps each word's cross-attention through the unmodified model (the Caption tab's
// difference map): equal to its own under a mask of ones, the unmodified decoder teacher-forced on the masked words.
#include "model_test_util.h"

#include "intervention/intervention.h"
#include "session/caption_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

namespace attn {
namespace {

const std::string kDemo = std::string(AS_SOURCE_DIR) + "/resources/models/demo-caption-scenes";

/// The demo's first held-out sample, preprocessed by the engine.
Tensor demoPixels(const Captioner& c)
{
    std::ifstream in(kDemo + "/reference.json");
    if (!in) throw Error(kDemo + "/reference.json", "cannot open");
    const nlohmann::json item = nlohmann::json::parse(in)["cases"][0];
    ImageBuffer image;
    image.width = image.height = c.model->config().imageSize;
    image.channels = 3;
    image.pixels = item["rgb"].get<std::vector<uint8_t>>();
    return c.model->imageEncoder().preprocess(image);
}

Tensor onesMask(const Seq2SeqHeadRows& rows)
{
    Tensor mask({ rows.rows(), rows.heads });
    std::fill(mask.storage().begin(), mask.storage().end(), 1.0f);
    return mask;
}

std::vector<CaptionWord> wholeCaption(const Captioner& c, const Tensor& pixels, const CaptionOptions& options)
{
    CaptionRun run(c.model, encodeImage(*c.model, pixels, options.headMask, {}), options);
    while (run.step()) { }
    return run.words();
}

TEST(CaptionHeadMask, AMaskOfOnesIsTheUnmaskedCaptionBitForBit)
{
    const Captioner c = loadCaptioner(kDemo);
    const Tensor pixels = demoPixels(c);
    CaptionOptions plain, ones;
    ones.headMask = onesMask(c.model->headRows());
    const std::vector<CaptionWord> a = wholeCaption(c, pixels, plain), b = wholeCaption(c, pixels, ones);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GT(a.size(), 3u);
    for (size_t w = 0; w < a.size(); ++w) {
        EXPECT_EQ(a[w].token, b[w].token) << "word " << w;
        EXPECT_EQ(a[w].probability, b[w].probability) << "word " << w;
        EXPECT_EQ(a[w].crossAttention.storage(), b[w].crossAttention.storage()) << "word " << w;
    }
}

TEST(CaptionHeadMask, StepsApplyTheDecoderRowsAsGreedyDecodeAndTheEncoderRowsToTheImage)
{
    const Captioner c = loadCaptioner(kDemo);
    const Tensor pixels = demoPixels(c);
    const Seq2SeqHeadRows rows = c.model->headRows();
    ASSERT_EQ(rows.rows(), 6); // 2 encoder layers, 2 decoder layers (self + cross)
    CaptionOptions masked;
    masked.maxNewTokens = 14;
    masked.headMask = onesMask(rows);
    // Cross-attention head 0 of decoder layer 1 removed (the one single head whose removal changes this caption) and
    // an encoder head halved.
    masked.headMask.at({ rows.crossRow(1), 0 }) = 0.0f;
    masked.headMask.at({ 0, 1 }) = 0.5f;

    const std::vector<CaptionWord> words = wholeCaption(c, pixels, masked);
    ASSERT_FALSE(words.empty());
    // greedyDecode's own loop with the same intervention on the same masked encoding.
    Intervention intervention;
    intervention.headMask = masked.headMask;
    ForwardOptions options;
    options.intervention = &intervention;
    EncoderInput input;
    input.pixels = pixels;
    const auto encoding = c.model->encode(input, options);
    const std::vector<int64_t> want = greedyDecode(*c.model, *encoding, masked.maxNewTokens, true, nullptr, options);
    std::vector<int64_t> got;
    for (const CaptionWord& w : words)
        got.push_back(w.token);
    EXPECT_EQ(got, want);
    const int64_t H = rows.heads, S = words.front().crossAttention.dim(2);
    for (size_t w = 0; w < words.size(); ++w)
        for (int64_t s = 0; s < S; ++s)
            EXPECT_EQ(words[w].crossAttention.data()[(1 * H + 0) * S + s], 0.0f) << "word " << w << " key " << s;

    // The encoder rows reach the image's encoding: halving one encoder head moves the encoder's final states.
    const auto plain = encodeImage(*c.model, pixels, {}, {});
    const auto halved = encodeImage(*c.model, pixels, masked.headMask, {});
    double moved = 0.0;
    for (int64_t i = 0; i < plain->hidden.numel(); ++i)
        moved = std::max(moved, std::abs(static_cast<double>(plain->hidden.data()[i] - halved->hidden.data()[i])));
    EXPECT_GT(moved, 1e-3);
    // And the caption changes: the unmasked one is PyTorch's "a green cross above a blue cross", the masked one
    // swaps the colours ("a blue cross above a green circle").
    CaptionOptions unmasked;
    unmasked.maxNewTokens = 14;
    std::vector<int64_t> before;
    for (const CaptionWord& w : wholeCaption(c, pixels, unmasked))
        before.push_back(w.token);
    EXPECT_EQ(c.text(before), "a green cross above a blue cross");
    EXPECT_NE(before, got) << c.text(got);
}

TEST(CaptionHeadMask, AMaskOfAnotherShapeIsRefused)
{
    const Captioner c = loadCaptioner(kDemo);
    const Tensor pixels = demoPixels(c);
    EXPECT_THROW(encodeImage(*c.model, pixels, Tensor({ 2, 4 }), {}), Error);
    CaptionOptions wrong;
    wrong.headMask = Tensor({ 6, 3 });
    EXPECT_THROW(wholeCaption(c, pixels, wrong), Error);
}

/// A caption under `options`' mask that also steps the unmodified decoder (CaptionRun's unmasked encoding).
std::vector<CaptionWord> comparedCaption(const Captioner& c, const Tensor& pixels, const CaptionOptions& options)
{
    CaptionRun run(
        c.model, encodeImage(*c.model, pixels, options.headMask, {}), options, encodeImage(*c.model, pixels, {}, {}));
    while (run.step()) { }
    return run.words();
}

TEST(CaptionHeadMask, UnderAMaskOfOnesEveryWordsUnmaskedCrossAttentionIsItsOwnBitForBit)
{
    const Captioner c = loadCaptioner(kDemo);
    CaptionOptions ones;
    ones.headMask = onesMask(c.model->headRows());
    const std::vector<CaptionWord> words = comparedCaption(c, demoPixels(c), ones);
    ASSERT_GT(words.size(), 3u);
    for (size_t w = 0; w < words.size(); ++w) {
        ASSERT_FALSE(words[w].unmaskedCrossAttention.empty()) << "word " << w;
        EXPECT_EQ(words[w].unmaskedCrossAttention.shape(), words[w].crossAttention.shape()) << "word " << w;
        EXPECT_EQ(words[w].unmaskedCrossAttention.storage(), words[w].crossAttention.storage()) << "word " << w;
    }
    // Without the unmasked encoding nothing extra is computed.
    EXPECT_TRUE(wholeCaption(c, demoPixels(c), ones).front().unmaskedCrossAttention.empty());
}

TEST(CaptionHeadMask, TheUnmaskedCrossAttentionIsTheUnmodifiedModelTeacherForcedOnTheMaskedWords)
{
    const Captioner c = loadCaptioner(kDemo);
    const Tensor pixels = demoPixels(c);
    const Seq2SeqHeadRows rows = c.model->headRows();
    CaptionOptions masked;
    masked.headMask = onesMask(rows);
    masked.headMask.at({ rows.crossRow(1), 0 }) = 0.0f; // changes the caption: "a blue cross above a green circle"
    const std::vector<CaptionWord> words = comparedCaption(c, pixels, masked);
    ASSERT_GT(words.size(), 3u);

    // Independently: the unmodified decoder fed the start token and the masked caption's words in one prefill.
    std::vector<int64_t> fed { c.model->decoderStartToken() };
    for (size_t w = 0; w + 1 < words.size(); ++w)
        fed.push_back(words[w].token);
    KvCache cache = c.model->newDecoderCache();
    const Seq2SeqStepResult plain = c.model->decode(*encodeImage(*c.model, pixels, {}, {}), cache, fed, {});
    const int64_t L = c.model->decoderLayers(), H = rows.heads, T = static_cast<int64_t>(fed.size());
    ASSERT_EQ(L, 2) << "layer 1 is the last";
    const int64_t S = words.front().crossAttention.dim(2);
    double headMass = 0.0;
    for (size_t w = 0; w < words.size(); ++w)
        for (int64_t l = 0; l < L; ++l)
            for (int64_t h = 0; h < H; ++h)
                for (int64_t s = 0; s < S; ++s) {
                    const size_t i = static_cast<size_t>((l * H + h) * S + s);
                    const float want = plain.crossAttention[static_cast<size_t>(l)]
                                           .data()[(h * T + static_cast<int64_t>(w)) * S + s];
                    const float unmasked = words[w].unmaskedCrossAttention.storage()[i];
                    const float withMask = words[w].crossAttention.storage()[i];
                    EXPECT_NEAR(unmasked, want, 1e-5) << "word " << w << " layer " << l << " head " << h;
                    if (l == 1 && h == 0) {
                        EXPECT_EQ(withMask, 0.0f);
                        headMass += unmasked;
                    } else {
                        // Nothing before the last layer's cross-attention depends on it, and its other heads'
                        // queries come from the same words: only the removed head's map changes.
                        EXPECT_EQ(withMask, unmasked) << "word " << w << " layer " << l << " head " << h;
                    }
                }
    EXPECT_NEAR(headMass, static_cast<double>(words.size()), 1e-4) << "each removed row held a whole softmax";
}

} // namespace
} // namespace attn
