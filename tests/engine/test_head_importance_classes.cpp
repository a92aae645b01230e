// SPDX-License-Identifier: MIT
// Head importance and greedy pruning of an image classifier, on the bundled demo ViT and its labelled samples, and
// `attnscope-cli prune` over a list of those images.
#include "model_test_util.h"

#include "analysis/head_importance_classes.h"
#include "intervention/head_ablation.h"
#include "intervention/intervention.h"
#include "intervention/output_diff.h"
#include "model/model_loader.h"
#include "model/model_source.h"

#include <filesystem>

namespace attn::test {
namespace {

const std::string kVit = std::string(AS_SOURCE_DIR) + "/resources/models/demo-vit-shapes";
// direct() takes logSoftmaxRows's log-sum-exp, rounded to float (logSumExp): within an ulp of float at the sizes these
// logits give (|log-sum-exp| < 8: 4.8e-7), while the code under test sums in double. An importance is a difference of
// two such means, stored as float.
constexpr double kLogProbTolerance = 1e-6;

std::shared_ptr<const VisionModel> vitModel()
{
    auto model = std::dynamic_pointer_cast<const VisionModel>(std::shared_ptr<const Model>(loadModel(kVit)));
    if (!model) throw Error(kVit, "did not load as a vision model");
    return model;
}

nlohmann::json vitReference()
{
    std::ifstream in(kVit + "/reference.json");
    if (!in) throw Error(kVit + "/reference.json", "missing");
    return nlohmann::json::parse(in);
}

/// The eight bundled samples (reference.json's RGB bytes of each PNG) with their true classes.
std::vector<LabelledImage> samples(const VisionModel& model)
{
    std::vector<LabelledImage> images;
    const nlohmann::json reference = vitReference();
    for (const auto& c : reference.at("cases")) {
        ImageBuffer image;
        image.width = image.height = model.config().imageSize;
        image.channels = 3;
        image.pixels = c.at("rgb").get<std::vector<uint8_t>>();
        images.push_back({ model.preprocess(image), c.at("label").get<int64_t>() });
    }
    if (images.size() != 8) throw Error(kVit + "/reference.json", "should hold the eight bundled samples");
    return images;
}

/// Computed here, not by the code under test: a classify pass per image under `mask`, log-softmax in double, the
/// true class's entry averaged, and the share whose largest logit is the true class.
ClassScore direct(const VisionModel& model, const std::vector<LabelledImage>& images, const Tensor& mask)
{
    Intervention intervention;
    intervention.headMask = mask;
    ForwardOptions options;
    options.wantAttention = false;
    options.intervention = mask.empty() ? nullptr : &intervention;
    ClassScore score;
    for (const LabelledImage& image : images) {
        const Tensor logits = model.classify(image.pixels, options).logits;
        score.logProb += logSoftmaxRows(logits).front()[static_cast<size_t>(image.label)];
        const float* row = logits.data();
        score.accuracy += std::max_element(row, row + logits.numel()) - row == image.label ? 1.0 : 0.0;
    }
    score.logProb /= static_cast<double>(images.size());
    score.accuracy /= static_cast<double>(images.size());
    return score;
}

TEST(ClassImportance, TheSamplesFileNamesGiveTheirTrueClasses)
{
    const auto model = vitModel();
    const nlohmann::json reference = vitReference();
    for (const auto& c : reference.at("cases"))
        EXPECT_EQ(labelInFileName(*model, c.at("image").get<std::string>()), c.at("label").get<int64_t>())
            << c.at("image");
    EXPECT_EQ(labelInFileName(*model, "/data/a_circle_beside_a_square.png"), -1) << "two classes named";
    EXPECT_EQ(labelInFileName(*model, "/data/circles.png"), -1) << "only a whole word names a class";
    EXPECT_EQ(labelInFileName(*model, "/triangle/photo.png"), -1) << "folders are not the file's name";
    EXPECT_EQ(labelInFileName(*model, "CROSS-12.jpg"), 3) << "case and punctuation do not matter";
}

TEST(ClassImportance, UnmodifiedAccuracyIsTheSamplesGroundTruth)
{
    const auto model = vitModel();
    const std::vector<LabelledImage> images = samples(*model);
    // PyTorch's predictions against the true labels, both recorded in reference.json.
    double agree = 0.0;
    const nlohmann::json reference = vitReference();
    for (const auto& c : reference.at("cases"))
        agree += c.at("predicted") == c.at("label") ? 1.0 : 0.0;
    const ClassScore score = classScore(*model, images, {}, {});
    EXPECT_DOUBLE_EQ(score.accuracy, agree / 8.0);
    EXPECT_NEAR(score.logProb, direct(*model, images, {}).logProb, kLogProbTolerance);
    EXPECT_LT(score.logProb, 0.0);
}

TEST(ClassImportance, EveryHeadEqualsAFullPassWithItRemoved)
{
    const auto model = vitModel();
    const std::vector<LabelledImage> images = samples(*model);
    const ModelConfig& c = model->config();
    double unmodified = 0.0;
    const Tensor importance = classHeadImportance(*model, images, {}, &unmodified);
    ASSERT_EQ(importance.shape(), (std::vector<int64_t> { c.numLayers, c.numHeads }));
    const double reference = direct(*model, images, {}).logProb;
    EXPECT_NEAR(unmodified, reference, kLogProbTolerance);
    double largest = 0.0;
    for (int64_t i = 0; i < importance.numel(); ++i) {
        const HeadRef head { i / c.numHeads, i % c.numHeads };
        const double expected = reference - direct(*model, images, headMaskWith({ head }, 0.0f, c)).logProb;
        EXPECT_NEAR(importance.data()[i], expected, 2 * kLogProbTolerance + 1e-7 * std::abs(expected))
            << "L" << head.layer << ".H" << head.head;
        largest = std::max(largest, std::abs(expected));
    }
    EXPECT_GT(largest, 1e-3) << "some head should matter to the classifier";
}

TEST(ClassImportance, EveryCurveStepEqualsAFullPassOfItsMask)
{
    const auto model = vitModel();
    const std::vector<LabelledImage> images = samples(*model);
    const ModelConfig& c = model->config();
    const Tensor importance = classHeadImportance(*model, images, {});
    const PruningCurve curve = classPruning(*model, images, importance, {});
    const auto heads = static_cast<size_t>(c.numLayers * c.numHeads);
    ASSERT_EQ(curve.order.size(), heads);
    ASSERT_EQ(curve.loss.size(), heads + 1);
    ASSERT_EQ(curve.accuracy.size(), heads + 1);
    EXPECT_TRUE(curve.copyAccuracy.empty());
    for (size_t k = 1; k < heads; ++k) {
        const HeadRef a = curve.order[k - 1], b = curve.order[k];
        EXPECT_LE(importance.data()[a.layer * c.numHeads + a.head], importance.data()[b.layer * c.numHeads + b.head]);
    }
    std::vector<HeadRef> removed;
    for (size_t k = 0; k <= heads; ++k) {
        if (k > 0) removed.push_back(curve.order[k - 1]);
        const ClassScore expected = direct(*model, images, headMaskWith(removed, 0.0f, c));
        EXPECT_NEAR(curve.loss[k], -expected.logProb, kLogProbTolerance) << k << " heads removed";
        EXPECT_DOUBLE_EQ(curve.accuracy[k], expected.accuracy) << k << " heads removed";
        EXPECT_DOUBLE_EQ(curve.removedShare[k], static_cast<double>(k) / static_cast<double>(heads));
    }
    // Ground truth the curve must reach: every sample right before, chance-like once every head is gone.
    EXPECT_DOUBLE_EQ(curve.accuracy.front(), 1.0);
    EXPECT_LT(curve.accuracy.back(), 1.0);
}

TEST(ClassImportance, ProgressCountsPassesAndCanStopIt)
{
    const auto model = vitModel();
    const std::vector<LabelledImage> images = samples(*model);
    const int64_t heads = model->config().numLayers * model->config().numHeads;
    int64_t last = 0, total = 0;
    RerunHooks hooks;
    hooks.layerDone = [&](int64_t done, int64_t all) {
        last = done;
        total = all;
        return true;
    };
    classHeadImportance(*model, images, {}, nullptr, hooks);
    EXPECT_EQ(total, 8 * (1 + heads));
    EXPECT_EQ(last, total);
    hooks.layerDone = [](int64_t done, int64_t) { return done < 5; };
    EXPECT_THROW(classHeadImportance(*model, images, {}, nullptr, hooks), Cancelled);
    EXPECT_THROW(
        classPruning(*model, images, Tensor({ model->config().numLayers, model->config().numHeads }), {}, hooks),
        Cancelled);
}

TEST(ClassImportance, ALabelOutsideTheClassesOrNoImageIsAnError)
{
    const auto model = vitModel();
    std::vector<LabelledImage> images = samples(*model);
    images.back().label = model->numLabels();
    EXPECT_THROW(classScore(*model, images, {}, {}), Error);
    EXPECT_THROW(classHeadImportance(*model, {}, {}), Error);
}

#ifdef AS_CLI_DECODES_IMAGES
TEST(ClassImportance, ThePruneCommandTakesAListOfLabelledImages)
{
    const auto model = vitModel();
    const std::vector<LabelledImage> images = samples(*model);
    const std::string dir = makeTempDir("prune-vit");
    {
        std::ofstream corpus(dir + "/images.txt");
        const nlohmann::json reference = vitReference();
        for (const auto& c : reference.at("cases"))
            corpus << kVit << "/" << c.at("image").get<std::string>() << "\n\n"; // blank lines are skipped
    }
    runCli("prune " + kVit + " --corpus " + dir + "/images.txt --out " + dir);
    const Tensor importance = classHeadImportance(*model, images, {});
    const Tensor written = readNpy(dir + "/importance.npy");
    ASSERT_EQ(written.shape(), importance.shape());
    for (int64_t i = 0; i < importance.numel(); ++i) // the PNGs hold reference.json's bytes: the same passes
        EXPECT_NEAR(written.data()[i], importance.data()[i], 1e-6) << i;
    nlohmann::json report;
    std::ifstream(dir + "/curve.json") >> report;
    EXPECT_EQ(report.at("inputs"), 8);
    const PruningCurve curve = classPruning(*model, images, importance, {});
    ASSERT_EQ(report.at("accuracy").size(), curve.accuracy.size());
    for (size_t k = 0; k < curve.accuracy.size(); ++k)
        EXPECT_DOUBLE_EQ(report.at("accuracy")[k].get<double>(), curve.accuracy[k]) << k;
    EXPECT_DOUBLE_EQ(report.at("accuracy")[0].get<double>(), 1.0) << "every sample is classified as its true class";
    EXPECT_NE(report.at("accuracy_meaning").get<std::string>().find("classification"), std::string::npos);
    EXPECT_TRUE(report.at("copy_accuracy").empty());
}

TEST(ClassImportance, ThePruneCommandRefusesAnImageWhoseNameNamesNoClass)
{
    const std::string dir = makeTempDir("prune-vit-unnamed");
    std::filesystem::copy_file(kVit + "/samples/sample_0_circle.png", dir + "/photo.png");
    std::ofstream(dir + "/images.txt") << "photo.png\n"; // relative to the list's folder
    const std::string out = runCli("prune " + kVit + " --corpus " + dir + "/images.txt --out " + dir, 1);
    EXPECT_NE(out.find(dir + "/photo.png"), std::string::npos) << out;
    EXPECT_NE(out.find("names none of the model's classes"), std::string::npos) << out;
}
#endif

} // namespace
} // namespace attn::test
