// SPDX-License-Identifier: MIT
// Image preprocessing: PIL resize semantics (hand-derived cases), HF's float32 rescale/normalize against the hf-tiny
// ViT fixture's stored pixel tensor, config parsing, and the decoded input0.png through the CLI.
#include "core/error.h"
#include "core/npy.h"
#include "support/shared_data.h"
#include "vision/pil_resize.h"
#include "vision/preprocess.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn {
namespace {

ImageBuffer gray(int64_t w, int64_t h, std::vector<uint8_t> px)
{
    return { w, h, 1, std::move(px) };
}

TEST(PilResize, BilinearDownscaleWidensTheFilter)
{
    // Halving: support 2, taps (3/7, 3/7, 1/7) and (1/7, 3/7, 3/7): 500/7 = 71.4 and 1450/7 = 207.1.
    const ImageBuffer out = resizeLikePil(gray(4, 1, { 0, 100, 200, 250 }), 2, 1, ResampleFilter::Bilinear);
    EXPECT_EQ(out.pixels, (std::vector<uint8_t> { 71, 207 }));
}

TEST(PilResize, BilinearUpscaleClampsAtTheEdges)
{
    // Doubling: centres 0.25, 0.75, 1.25, 1.75; the edge outputs have one tap, the inner ones 3:1 / 1:3 blends.
    const ImageBuffer out = resizeLikePil(gray(2, 1, { 0, 100 }), 4, 1, ResampleFilter::Bilinear);
    EXPECT_EQ(out.pixels, (std::vector<uint8_t> { 0, 25, 75, 100 }));
    const ImageBuffer col = resizeLikePil(gray(1, 2, { 0, 100 }), 1, 4, ResampleFilter::Bilinear);
    EXPECT_EQ(col.pixels, out.pixels); // the vertical pass is the same filter
}

TEST(PilResize, BicubicOvershootIsClippedAndConstantsSurvive)
{
    // A step upscaled with a negative-lobe kernel rings; PIL clips to [0, 255].
    const ImageBuffer step = resizeLikePil(gray(4, 1, { 0, 0, 255, 255 }), 16, 1, ResampleFilter::Bicubic);
    EXPECT_EQ(step.pixels.front(), 0);
    EXPECT_EQ(step.pixels.back(), 255);
    for (ResampleFilter f :
        { ResampleFilter::Bilinear, ResampleFilter::Bicubic, ResampleFilter::Box, ResampleFilter::Hamming }) {
        const ImageBuffer flat { 5, 7, 3, std::vector<uint8_t>(5 * 7 * 3, 173) };
        const ImageBuffer out = resizeLikePil(flat, 11, 3, f);
        EXPECT_EQ(out.pixels, std::vector<uint8_t>(11 * 3 * 3, 173)) << int(f);
    }
    EXPECT_THROW(resampleFilterFromPil(0, "cfg"), Error); // nearest: not implemented, said so
}

TEST(Preprocess, ReproducesTheFixturePixelTensorBitForBit)
{
    // The fixture image needs no resize; invert HF's x / 255 * 2 - 1 to the 8-bit pixels and run them through.
    const Tensor golden = readNpy(test::sharedPath("fixtures/hf-tiny/vit/golden/item0/pixel_values.npy"));
    ASSERT_EQ(golden.shape(), (Shape { 3, 32, 32 }));
    ImageBuffer img { 32, 32, 3, std::vector<uint8_t>(32 * 32 * 3) };
    for (int64_t c = 0; c < 3; ++c)
        for (int64_t i = 0; i < 32 * 32; ++i) {
            const double v = (golden.data()[c * 1024 + i] * 0.5 + 0.5) * 255.0;
            ASSERT_NEAR(v, std::round(v), 1e-3);
            img.pixels[static_cast<size_t>(i * 3 + c)] = static_cast<uint8_t>(std::lround(v));
        }
    const auto cfg = parsePreprocessConfig(test::sharedPath("fixtures/hf-tiny/vit/preprocessor_config.json"), 3, 32);
    const Tensor mine = preprocessImage(img, cfg);
    ASSERT_EQ(mine.shape(), golden.shape());
    for (int64_t i = 0; i < mine.numel(); ++i)
        ASSERT_EQ(mine.data()[i], golden.data()[i]) << "element " << i;
}

#ifdef AS_CLI_DECODES_IMAGES
TEST(Preprocess, DecodedFixturePngMatchesThroughTheCli)
{
    const std::string dir = test::makeTempDir("preprocess");
    std::string out;
    const int rc = test::runCommand(test::cliPath() + " attention " + test::sharedPath("fixtures/hf-tiny/vit")
            + " --image " + test::sharedPath("fixtures/hf-tiny/vit/input0.png") + " --out " + dir,
        &out);
    ASSERT_EQ(rc, 0) << out;
    const Tensor mine = readNpy(dir + "/pixel_values.npy");
    const Tensor golden = readNpy(test::sharedPath("fixtures/hf-tiny/vit/golden/item0/pixel_values.npy"));
    ASSERT_EQ(mine.shape(), golden.shape());
    for (int64_t i = 0; i < mine.numel(); ++i)
        ASSERT_EQ(mine.data()[i], golden.data()[i]) << "element " << i;
}
#endif

TEST(Preprocess, MnistConfigEqualsTheProvenanceFormulaForEveryLevel)
{
    // PROVENANCE.md: HF's output is bit-identical to (float32(u8) / 255 - 0.1307) / 0.3081 in float32.
    const auto cfg
        = parsePreprocessConfig(test::sharedPath("models/vit-mnist-tiny/hf/preprocessor_config.json"), 1, 28);
    EXPECT_FALSE(cfg.doResize);
    ImageBuffer img { 256, 1, 1, {} };
    for (int v = 0; v < 256; ++v)
        img.pixels.push_back(static_cast<uint8_t>(v));
    const Tensor t = preprocessImage(img, cfg);
    for (int v = 0; v < 256; ++v)
        EXPECT_EQ(t.data()[v], (static_cast<float>(v) / 255.0f - 0.1307f) / 0.3081f) << v;
}

TEST(Preprocess, ChannelConversionFollowsPil)
{
    // Gray -> RGB replicates; RGB -> L uses PIL's rounded 601 luma; alpha is dropped.
    const ImageBuffer g = convertChannels(gray(1, 1, { 77 }), 3);
    EXPECT_EQ(g.pixels, (std::vector<uint8_t> { 77, 77, 77 }));
    const ImageBuffer l = convertChannels({ 2, 1, 4, { 255, 0, 0, 9, 10, 200, 30, 255 } }, 1);
    // 255 * 19595 / 65536 = 76.25 -> 76; (10*19595 + 200*38470 + 30*7471) / 65536 = 123.8 -> 124
    EXPECT_EQ(l.pixels, (std::vector<uint8_t> { 76, 124 }));
    EXPECT_THROW(convertChannels({ 2, 2, 3, std::vector<uint8_t>(5) }, 3), Error);
}

TEST(Preprocess, ConfigParsingRejectsWhatItCannotMimic)
{
    EXPECT_THROW(parsePreprocessConfigText("{", "p.json", 3, 32), Error);
    EXPECT_THROW(parsePreprocessConfigText(R"({"image_mean": [0.5, 0.5]})", "p.json", 3, 32), Error);
    EXPECT_THROW(parsePreprocessConfigText(R"({"size": {"shortest_edge": 224}})", "p.json", 3, 32), Error);
    EXPECT_THROW(parsePreprocessConfigText(R"({"resample": 1})", "p.json", 3, 32), Error);
    EXPECT_THROW(parsePreprocessConfigText(R"({"image_std": 0})", "p.json", 1, 32), Error);
    const auto c = parsePreprocessConfigText(
        R"({"size": 40, "do_center_crop": true, "crop_size": {"height": 32, "width": 30}, "resample": 3})", "p.json", 3,
        32);
    EXPECT_EQ(c.height, 40);
    EXPECT_TRUE(c.doCenterCrop);
    EXPECT_EQ(c.cropWidth, 30);
    EXPECT_EQ(c.resample, ResampleFilter::Bicubic);
    // Resize to 40x40 then the centre 30x32 (left (40 - 30) / 2 = 5, top 4).
    ImageBuffer img { 40, 40, 3, std::vector<uint8_t>(40 * 40 * 3) };
    img.pixels[static_cast<size_t>((4 * 40 + 5) * 3)] = 255;
    const Tensor t = preprocessImage(img, c);
    EXPECT_EQ(t.shape(), (Shape { 3, 32, 30 }));
    EXPECT_EQ(t.data()[0], 1.0f);
    EXPECT_EQ(t.data()[1], -1.0f);
}

} // namespace
} // namespace attn
