// SPDX-License-Identifier: MIT
// ViT against the hf-tiny goldens (attention, hidden states, logits) and the genuine MNIST ViT against HF's logits
// and attention; position interpolation and input checks.
#include "core/error.h"
#include "model/model_loader.h"
#include "model/vit_model.h"
#include "model_test_util.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

namespace attn {
namespace {

using test::Fixture;
using test::maxAbsDiff;

std::shared_ptr<const VisionModel> loadVision(const std::string& path)
{
    auto model = std::dynamic_pointer_cast<const VisionModel>(loadModel(path));
    if (!model) throw std::runtime_error(path + " did not load as a vision model");
    return model;
}

TEST(VitModel, MatchesHfAttentionHiddenStatesAndLogits)
{
    const Fixture fx("vit");
    const auto model = loadVision(fx.dir);
    EXPECT_EQ(model->kind(), ModelKind::Vision);
    EXPECT_EQ(model->prefixTokens(), 1);
    ForwardOptions options;
    options.wantHiddenStates = true;
    const StepResult r = model->classify(fx.tensor("pixel_values.npy"), options);
    const int64_t layers = model->config().numLayers;
    ASSERT_EQ(static_cast<int64_t>(r.attention.size()), layers);
    ASSERT_EQ(static_cast<int64_t>(r.hiddenStates.size()), layers + 1);
    double attn = 0, hidden = 0;
    for (int64_t l = 0; l < layers; ++l)
        attn = std::max(attn, maxAbsDiff(r.attention[static_cast<size_t>(l)], fx.tensor(fx.attentionFile(l))));
    for (int64_t i = 0; i <= layers; ++i)
        hidden = std::max(
            hidden, maxAbsDiff(r.hiddenStates[static_cast<size_t>(i)], fx.tensor(fx.layerFile("hidden_states", i))));
    ASSERT_EQ(r.logits.shape(), (Shape { 1, 10 }));
    const double logits = maxAbsDiff(r.logits.reshaped({ 10 }), fx.tensor("logits.npy"));
    std::printf("vit: max abs error attention %.2e, hidden states %.2e, logits %.2e\n", attn, hidden, logits);
    EXPECT_LE(attn, fx.tolerance("attentions"));
    EXPECT_LE(hidden, fx.tolerance("hidden_states"));
    EXPECT_LE(logits, fx.tolerance("logits"));
    EXPECT_EQ(model->tokenNames(32, 32).size(), 17u);
    EXPECT_EQ(model->tokenNames(32, 32)[5], "patch 1,0");
    EXPECT_EQ(model->label(3), "LABEL_3");
}

/// The first n MNIST test images from the uint8 .npy ([100, 28, 28], '|u1').
std::vector<ImageBuffer> mnistImages(int n)
{
    std::ifstream in(
        test::sharedPath("models/vit-mnist-tiny/samples/mnist_t10k_first100_images_uint8.npy"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() < 10 || bytes.compare(1, 5, "NUMPY") != 0) throw std::runtime_error("not an npy file");
    const size_t header = 10 + static_cast<unsigned char>(bytes[8]) + 256u * static_cast<unsigned char>(bytes[9]);
    if (bytes.find("'|u1'") > header || bytes.find("(100, 28, 28)") > header)
        throw std::runtime_error("unexpected MNIST npy header");
    std::vector<ImageBuffer> images;
    for (int i = 0; i < n; ++i) {
        const auto* p = reinterpret_cast<const uint8_t*>(bytes.data() + header + static_cast<size_t>(i) * 784);
        images.push_back({ 28, 28, 1, std::vector<uint8_t>(p, p + 784) });
    }
    return images;
}

TEST(VitModel, GenuineMnistVitMatchesHfLogitsAndAttention)
{
    const auto model = loadVision(test::sharedPath("models/vit-mnist-tiny/hf"));
    const Tensor refLogits = readNpy(test::sharedPath("models/vit-mnist-tiny/hf/reference_logits_samples10.npy"));
    const Tensor refAttn = readNpy(test::sharedPath("models/vit-mnist-tiny/hf/reference_attn_sample0_L6_H8_17x17.npy"));
    const std::vector<int64_t> labels { 7, 2, 1, 0, 4, 1, 4, 9, 5, 9 };
    const auto images = mnistImages(10);
    double logitErr = 0, attnErr = 0;
    for (int i = 0; i < 10; ++i) {
        const StepResult r = model->classify(model->preprocess(images[static_cast<size_t>(i)]), {});
        ASSERT_EQ(r.logits.shape(), (Shape { 1, 128 }));
        const Tensor ref = test::rowsOf(refLogits, i, i + 1);
        logitErr = std::max(logitErr, maxAbsDiff(r.logits, ref));
        const auto best = std::max_element(r.logits.storage().begin(), r.logits.storage().end());
        EXPECT_EQ(best - r.logits.storage().begin(), labels[static_cast<size_t>(i)]) << "sample " << i;
        EXPECT_EQ(model->label(labels[static_cast<size_t>(i)]), std::to_string(labels[static_cast<size_t>(i)]));
        if (i == 0) {
            ASSERT_EQ(r.attention.size(), 6u);
            for (int64_t l = 0; l < 6; ++l) {
                const int64_t n = 8 * 17 * 17;
                const Tensor ref0(
                    { 8, 17, 17 }, std::vector<float>(refAttn.data() + l * n, refAttn.data() + (l + 1) * n));
                attnErr = std::max(attnErr, maxAbsDiff(r.attention[static_cast<size_t>(l)], ref0));
            }
        }
    }
    std::printf("vit-mnist: max abs error logits %.2e, attention %.2e\n", logitErr, attnErr);
    EXPECT_LE(logitErr, 1e-4);
    EXPECT_LE(attnErr, 1e-5);
}

TEST(VitModel, InterpolatedPositionsKeepConstantsAndIdentity)
{
    // A constant field stays constant under bicubic resampling (the weights sum to 1), whatever the grid.
    Tensor flat({ 16, 3 });
    for (float& v : flat.storage())
        v = 0.75f;
    const Tensor up = interpolatePatchPositions(flat, 6, 3);
    ASSERT_EQ(up.shape(), (Shape { 18, 3 }));
    for (float v : up.storage())
        EXPECT_NEAR(v, 0.75f, 1e-6);
    // The same 4x4 grid: HF's +0.1 gives scale 4.1 / 4, so sample o reads source 0.9756 (o + 0.5) - 0.5, at most
    // 0.085 away from o per axis; a ramp r + c therefore moves by less than 0.2.
    Tensor ramp({ 16, 1 });
    for (int64_t i = 0; i < 16; ++i)
        ramp.data()[i] = static_cast<float>(i / 4 + i % 4);
    const Tensor same = interpolatePatchPositions(ramp, 4, 4);
    for (int64_t i = 0; i < 16; ++i)
        EXPECT_NEAR(same.data()[i], ramp.data()[i], 0.2) << i;
    EXPECT_THROW(interpolatePatchPositions(Tensor({ 15, 2 }), 4, 4), Error);
}

TEST(VitModel, OtherImageSizesRunAndBadInputsThrow)
{
    const Fixture fx("vit");
    const auto model = loadVision(fx.dir);
    const StepResult r = model->classify(Tensor({ 3, 48, 40 }), {}); // 6 x 5 patches, interpolated positions
    ASSERT_EQ(r.attention.size(), 2u);
    EXPECT_EQ(r.attention[0].shape(), (Shape { 4, 31, 31 }));
    EXPECT_THROW(model->classify(Tensor({ 1, 32, 32 }), {}), Error);
    EXPECT_THROW(model->classify(Tensor({ 3, 4, 32 }), {}), Error);
    EXPECT_THROW(model->classify(Tensor({ 32, 32 }), {}), Error);
}

} // namespace
} // namespace attn
