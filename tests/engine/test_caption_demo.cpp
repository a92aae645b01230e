// SPDX-License-Identifier: MIT
// The bundled demo captioner (resources/models/demo-caption-scenes, trained by tools/train/train_caption.py): the
// engine's greedy captions of the held-out samples are PyTorch's, id for id, and its object words look at their
// objects: with the true caption teacher-forced, the best cross-attention head puts more of each object word's
// attention on that object than the object's share of the image.
#include "model_test_util.h"
#include "session/caption_run.h"

#include <gtest/gtest.h>

#include <fstream>

namespace attn {
namespace {

const std::string kModel = std::string(AS_SOURCE_DIR) + "/resources/models/demo-caption-scenes";

nlohmann::json reference()
{
    std::ifstream in(kModel + "/reference.json");
    if (!in) throw Error(kModel + "/reference.json", "cannot open");
    return nlohmann::json::parse(in);
}

/// One reference case's pixels (its PNG's bytes, preprocessed by the engine) encoded.
std::shared_ptr<const EncoderOutput> encodeCase(const Captioner& c, const nlohmann::json& item)
{
    ImageBuffer image;
    image.width = image.height = c.model->config().imageSize;
    image.channels = 3;
    image.pixels = item["rgb"].get<std::vector<uint8_t>>();
    EncoderInput input;
    input.pixels = c.model->imageEncoder().preprocess(image);
    return c.model->encode(input, {});
}

TEST(DemoCaptioner, ReproducesPyTorchsGreedyCaptions)
{
    const Captioner c = loadCaptioner(kModel);
    const nlohmann::json ref = reference();
    ASSERT_GE(ref["cases"].size(), 4u);
    for (const auto& item : ref["cases"]) {
        CaptionOptions options;
        options.maxNewTokens = ref["max_new_tokens"].get<int64_t>();
        CaptionRun run(c.model, encodeCase(c, item), options);
        while (run.step()) { }
        EXPECT_EQ(run.ids(), item["greedy_ids"].get<std::vector<int64_t>>()) << item["image"];
        EXPECT_EQ(c.text(run.ids()), item["greedy_text"].get<std::string>()) << item["image"];
    }
}

TEST(DemoCaptioner, ObjectWordsAttendToTheirObjects)
{
    const Captioner c = loadCaptioner(kModel);
    const nlohmann::json ref = reference();
    const int64_t L = c.model->decoderLayers(), H = c.model->decoderHeads();
    const int64_t prefix = c.model->imageEncoder().prefixTokens();
    std::vector<double> share(static_cast<size_t>(L * H), 0.0);
    double imageShare = 0.0;
    int words = 0;
    for (const auto& item : ref["cases"]) {
        // The true caption teacher-forced: row k of the cross-attention is the step that generates word k.
        std::vector<int64_t> ids { c.model->decoderStartToken() };
        for (const Token& t : c.tokenizer->encode(item["caption"].get<std::string>(), false))
            ids.push_back(t.id);
        KvCache cache = c.model->newDecoderCache();
        const Seq2SeqStepResult r = c.model->decode(*encodeCase(c, item), cache, ids, {});
        const auto T = static_cast<int64_t>(ids.size());
        for (const auto& object : item["objects"]) {
            const auto coverage = object["patch_coverage"].get<std::vector<double>>();
            for (const char* key : { "colour_word", "shape_word" }) {
                const int64_t k = object[key].get<int64_t>();
                for (int64_t lh = 0; lh < L * H; ++lh) {
                    const Tensor& cross = r.crossAttention[static_cast<size_t>(lh / H)]; // [H, T, S]
                    const int64_t S = cross.dim(2);
                    const float* row = cross.data() + ((lh % H) * T + k) * S + prefix;
                    double on = 0.0, all = 0.0;
                    for (size_t p = 0; p < coverage.size(); ++p) {
                        on += row[p] * coverage[p];
                        all += row[p];
                    }
                    share[static_cast<size_t>(lh)] += on / all;
                }
                double area = 0.0;
                for (double v : coverage)
                    area += v;
                imageShare += area / static_cast<double>(coverage.size());
                ++words;
            }
        }
    }
    ASSERT_GT(words, 8);
    const double best = *std::max_element(share.begin(), share.end()) / words;
    EXPECT_GT(best, 2.0 * imageShare / words) << "best head share " << best << ", image share " << imageShare / words;
}

} // namespace
} // namespace attn
