// SPDX-License-Identifier: MIT
// The models the app bundles (resources/models/, trained by tools/train/) load and reproduce the outputs recorded by
// the independent PyTorch implementation they were trained with (reference.json beside each model).
#include "core/error.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "model/vision_model.h"
#include "session/beam_search.h"
#include "session/sampler.h"
#include "session/session.h"
#include "session/translator.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_loader.h"
#include "vision/image_buffer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace attn {
namespace {

const std::string kModels = std::string(AS_SOURCE_DIR) + "/resources/models/";
const std::string kDecoderDemo = kModels + "demo-stories-llama";

nlohmann::json readReference(const std::string& folder)
{
    std::ifstream in(folder + "/reference.json");
    if (!in) throw Error(folder + "/reference.json", "missing");
    auto ref = nlohmann::json::parse(in);
    if (ref["cases"].empty()) throw Error(folder + "/reference.json", "has no cases");
    return ref;
}

/// Source text -> ids through the folder's own tokenizer, greedy decoding through beam search of width 1 (what
/// `attnscope-cli translate` runs), and the ids -> text the CLI prints, all against the PyTorch model's.
void expectReferenceTranslations(const std::string& folder)
{
    const Translator model(folder);
    const auto ref = readReference(folder);
    for (const auto& c : ref["cases"]) {
        const auto sourceIds = c["source_ids"].get<std::vector<int64_t>>();
        EXPECT_EQ(model.source(c["source"].get<std::string>()).ids, sourceIds) << c["source"];
        BeamOptions options;
        options.width = 1;
        options.maxNewTokens = model.maxNewTokens();
        options.startToken = model.startToken();
        options.eosToken = model.eosToken();
        const auto beams = beamSearch(*model.decoder(sourceIds), options);
        const auto greedy = c["greedy_ids"].get<std::vector<int64_t>>();
        ASSERT_FALSE(beams.empty());
        EXPECT_EQ(beams.front().tokens, greedy) << c["source"];
        ASSERT_FALSE(greedy.empty());
        ASSERT_EQ(greedy.back(), model.eosToken()) << "the reference translation should end with EOS";
        const std::vector<int64_t> words(greedy.begin(), greedy.end() - 1);
        EXPECT_EQ(model.text(words), c["translation"].get<std::string>()) << c["source"];
    }
}

TEST(DemoDecoder, ReproducesPyTorchGreedyContinuationsAndLogits)
{
    const ModelSource source = probeModel(kDecoderDemo);
    const auto model = loadModel(source);
    const auto tokenizer = loadTokenizer(source);
    const auto ref = readReference(kDecoderDemo);
    for (const auto& c : ref["cases"]) {
        const auto promptIds = c["prompt_ids"].get<std::vector<int64_t>>();
        EXPECT_EQ(tokenIds(tokenizer->encode(c["prompt"].get<std::string>(), false)), promptIds) << c["prompt"];

        Session session(model);
        const auto prefill = session.prefill(promptIds);
        const auto lastLogits = c["last_logits"].get<std::vector<float>>();
        const int64_t vocab = prefill->logits.dim(1);
        ASSERT_EQ(static_cast<int64_t>(lastLogits.size()), vocab);
        const float* last = prefill->logits.data() + (prefill->logits.dim(0) - 1) * vocab;
        float worst = 0.0f;
        for (int64_t v = 0; v < vocab; ++v)
            worst = std::max(worst, std::abs(last[v] - lastLogits[static_cast<size_t>(v)]));
        EXPECT_LT(worst, 1e-4f) << "last-position logits differ from PyTorch for " << c["prompt"];

        std::vector<int64_t> generated;
        int64_t next = argmax(last, vocab);
        for (size_t i = 0; i < c["greedy_ids"].size(); ++i) {
            generated.push_back(next);
            const auto r = session.step(next);
            next = argmax(r->logits.data(), vocab);
        }
        EXPECT_EQ(generated, c["greedy_ids"].get<std::vector<int64_t>>()) << c["prompt"];
    }
}

TEST(DemoTranslation, MarianReproducesPyTorchGreedyTranslations)
{
    expectReferenceTranslations(kModels + "demo-translate-marian");
}

TEST(DemoTranslation, GruReproducesPyTorchGreedyTranslations)
{
    expectReferenceTranslations(kModels + "demo-translate-gru");
}

TEST(DemoVit, ReproducesPyTorchClassesAndLogits)
{
    const std::string folder = kModels + "demo-vit-shapes";
    const auto model = std::dynamic_pointer_cast<const VisionModel>(loadModel(probeModel(folder)));
    ASSERT_TRUE(model) << folder << " did not load as a vision model";
    const auto ref = readReference(folder);
    for (const auto& c : ref["cases"]) {
        // The sample PNG's bytes, so that the engine's preprocessing (preprocessor_config.json) is checked too.
        ImageBuffer image;
        image.width = image.height = model->config().imageSize;
        image.channels = 3;
        image.pixels = c["rgb"].get<std::vector<uint8_t>>();
        const StepResult r = model->classify(model->preprocess(image), {});
        const auto logits = c["logits"].get<std::vector<float>>();
        ASSERT_EQ(r.logits.numel(), static_cast<int64_t>(logits.size())) << c["image"];
        float worst = 0.0f;
        for (size_t k = 0; k < logits.size(); ++k)
            worst = std::max(worst, std::abs(r.logits.data()[k] - logits[k]));
        EXPECT_LT(worst, 1e-4f) << "logits differ from PyTorch for " << c["image"];
        const int64_t predicted = argmax(r.logits.data(), r.logits.numel());
        EXPECT_EQ(predicted, c["predicted"].get<int64_t>()) << c["image"];
        EXPECT_EQ(model->label(c["label"].get<int64_t>()), c["class"].get<std::string>()) << "id2label of " << folder;
    }
}

} // namespace
} // namespace attn
