// SPDX-License-Identifier: MIT
// attnscope-cli caption and attention on an image-to-text model: the greedy ids are HF's, --image decodes the PNG to
// the golden pixels' caption, a wider beam never scores worse than greedy, and the attention files are the goldens.
#include "model/vision_encoder_decoder.h"
#include "model_test_util.h"
#include "session/caption_run.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

namespace attn {
namespace {

using test::Fixture;

std::string run(const std::string& args, int expectRc = 0)
{
    return test::runCli(args, expectRc);
}

std::vector<int64_t> lastLineIds(const std::string& out)
{
    std::string line, last;
    std::istringstream lines(out);
    while (std::getline(lines, line))
        if (!line.empty()) last = line;
    std::istringstream words(last);
    std::vector<int64_t> ids;
    for (int64_t id = 0; words >> id;)
        ids.push_back(id);
    return ids;
}

TEST(CaptionCli, GreedyIdsAreHfs)
{
    const Fixture fx("vision-encoder-decoder");
    const std::string out
        = run("caption " + fx.dir + " --pixel-values " + fx.golden("pixel_values.npy") + " --max-new-tokens 8 --ids");
    EXPECT_EQ(lastLineIds(out), fx.ids("greedy_ids.npy")) << out;
    run("caption " + fx.dir + " --pixel-values " + fx.golden("pixel_values.npy") + " --beam 0", 2);
    run("caption " + fx.dir + " --max-new-tokens 3", 2); // no image
    run("caption " + test::sharedPath("fixtures/hf-tiny/vit") + " --pixel-values " + fx.golden("pixel_values.npy"), 1);
}

#ifdef AS_CLI_DECODES_IMAGES
TEST(CaptionCli, ImageFileGivesTheGoldenPixelsCaption)
{
    const Fixture fx("vision-encoder-decoder");
    const std::string out = run("caption " + fx.dir + " --image " + fx.dir + "/input0.png --max-new-tokens 8 --ids");
    EXPECT_EQ(lastLineIds(out), fx.ids("greedy_ids.npy")) << out;
}

// The strip's data is every greedy word's cross-attention over the patches: HF's per-step rows without [CLS].
TEST(CaptionCli, ExportCaptionViewWritesTheStripAndItsData)
{
    const Fixture fx("vision-encoder-decoder");
    const std::string dir = test::makeTempDir("caption-export");
    const std::string common = "export " + fx.dir + " --image " + fx.dir + "/input0.png --view caption --layer 0 ";
    run(common + "--format npy --out " + dir + "/strip.npy");
    const Tensor data = readNpy(dir + "/strip.npy");
    ASSERT_EQ(data.rank(), 3);
    EXPECT_EQ(data.dim(0), 20); // no EOS among the greedy ids: the 20-word default cap
    ASSERT_EQ(data.dim(1), 4);
    ASSERT_EQ(data.dim(2), 64);
    const Tensor rows = fx.tensor("greedy_cross_attentions.L00.npy"); // [8, 4, 65]
    double worst = 0.0;
    for (int64_t w = 0; w < 8; ++w)
        for (int64_t h = 0; h < 4; ++h)
            for (int64_t p = 0; p < 64; ++p)
                worst = std::max(worst, std::abs(static_cast<double>(data.at({ w, h, p }) - rows.at({ w, h, p + 1 }))));
    EXPECT_LE(worst, fx.tolerance("greedy_cross_attentions"));
    run(common + "--head -1 --format svg --out " + dir + "/strip.svg");
    std::ifstream svg(dir + "/strip.svg");
    const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find(">y<"), std::string::npos) << "the first word is not vector text";
    run(common + "--layer 5 --format png --out " + dir + "/strip.png", 1);
}
#endif

// Beam search keeps the greedy path among its candidates, so its best length-normalised score is never lower.
TEST(CaptionCli, BeamScoresAtLeastAsWellAsGreedy)
{
    const Fixture fx("vision-encoder-decoder");
    const std::string beamOut = run("caption " + fx.dir + " --pixel-values " + fx.golden("pixel_values.npy")
        + " --max-new-tokens 6 --beam 3 --ids");
    const std::vector<int64_t> beamIds = lastLineIds(beamOut);
    ASSERT_FALSE(beamIds.empty()) << beamOut;
    const Captioner c = loadCaptioner(fx.dir);
    EncoderInput in;
    in.pixels = fx.tensor("pixel_values.npy");
    const auto enc = c.model->encode(in, {});
    auto score = [&](const std::vector<int64_t>& ids) {
        auto decoder = makeBeamDecoder(c.model, enc);
        double logProb = 0.0;
        int64_t fed = c.model->decoderStartToken();
        for (int64_t id : ids) {
            const BeamStepOutput o = decoder->step(fed);
            double sum = 0.0;
            const float top = *std::max_element(o.logits.begin(), o.logits.end());
            for (float l : o.logits)
                sum += std::exp(static_cast<double>(l - top));
            logProb += static_cast<double>(o.logits[static_cast<size_t>(id)] - top) - std::log(sum);
            fed = id;
        }
        return logProb / static_cast<double>(ids.size());
    };
    std::vector<int64_t> greedy = fx.ids("greedy_ids.npy");
    greedy.resize(6);
    EXPECT_GE(score(beamIds), score(greedy) - 1e-9);
}

TEST(CaptionCli, AttentionWritesEncoderDecoderAndCrossLayers)
{
    const Fixture fx("vision-encoder-decoder");
    const std::string dir = test::makeTempDir("caption-attention");
    std::string ids;
    for (int64_t id : fx.ids("decoder_input_ids.npy"))
        ids += (ids.empty() ? "" : ",") + std::to_string(id);
    run("attention " + fx.dir + " --pixel-values " + fx.golden("pixel_values.npy") + " --decoder-tokens " + ids
        + " --backend cpu --out " + dir);
    for (int l = 0; l < 2; ++l) {
        char golden[64];
        std::snprintf(golden, sizeof golden, "cross_attentions.L%02d.npy", l);
        const Tensor cross = readNpy(dir + "/cross.L" + std::to_string(l) + ".npy");
        EXPECT_EQ(cross.shape(), (Shape { 4, 26, 65 }));
        EXPECT_LE(test::maxAbsDiff(cross, fx.tensor(golden)), fx.tolerance("cross_attentions"));
    }
    EXPECT_LE(test::maxAbsDiff(readNpy(dir + "/logits.npy"), fx.tensor("logits.npy")), fx.tolerance("logits"));
    run("attention " + fx.dir + " --tokens 1,2 --out " + dir, 2);
}

} // namespace
} // namespace attn
