// SPDX-License-Identifier: MIT
#include "analysis/head_importance_classes.h"

#include "analysis/row_log_prob.h"
#include "core/error.h"
#include "intervention/head_ablation.h"
#include "intervention/intervention.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

namespace attn {
namespace {

/// Sums over images of one set of passes.
struct ClassSum {
    double logProb = 0.0;
    int64_t correct = 0;
};

/// The log-probability of `label` in one row of logits and whether it is the row's first largest entry.
ClassSum scoreLogits(const Tensor& logits, int64_t label)
{
    const float* row = logits.data();
    const int64_t n = logits.numel();
    const int64_t best = std::max_element(row, row + n) - row;
    return { rowLogProb(row, n, label), best == label ? 1 : 0 };
}

void expectImages(const VisionModel& model, const std::vector<LabelledImage>& images)
{
    if (images.empty()) throw Error("head importance: no labelled image to classify");
    for (const LabelledImage& image : images)
        if (image.label < 0 || image.label >= model.numLabels())
            throw Error("head importance: class " + std::to_string(image.label) + " is not one of the model's "
                + std::to_string(model.numLabels()) + " classes");
}

/// Every image once under `mask` (empty: none), summed.
ClassSum classSums(const VisionModel& model, const std::vector<LabelledImage>& images, const Tensor& mask,
    const ForwardOptions& options, const RerunHooks& hooks, int64_t& done, int64_t total)
{
    Intervention removal;
    removal.headMask = mask;
    ForwardOptions pass = options;
    pass.intervention = mask.empty() ? nullptr : &removal;
    ClassSum sum;
    for (const LabelledImage& image : images) {
        const StepResult r = model.classify(image.pixels, pass);
        if (r.logits.empty()) throw Error(model.config().source, "the model has no classifier head");
        const ClassSum s = scoreLogits(r.logits, image.label);
        sum.logProb += s.logProb;
        sum.correct += s.correct;
        if (hooks.layerDone && !hooks.layerDone(++done, total)) throw Cancelled();
    }
    return sum;
}

/// Lower-case runs of letters and digits of `text`.
std::vector<std::string> words(const std::string& text)
{
    std::vector<std::string> out;
    std::string word;
    for (const char ch : text + ' ') {
        const auto u = static_cast<unsigned char>(ch);
        if (std::isalnum(u)) {
            word += static_cast<char>(std::tolower(u));
        } else if (!word.empty()) {
            out.push_back(word);
            word.clear();
        }
    }
    return out;
}

} // namespace

ClassScore classScore(const VisionModel& model, const std::vector<LabelledImage>& images, const Tensor& headMask,
    const ForwardOptions& base)
{
    expectImages(model, images);
    int64_t done = 0;
    const ClassSum sum = classSums(model, images, headMask, scoringOptions(base, {}), {}, done, 0);
    const auto n = static_cast<double>(images.size());
    return { sum.logProb / n, static_cast<double>(sum.correct) / n };
}

Tensor classHeadImportance(const VisionModel& model, const std::vector<LabelledImage>& images,
    const ForwardOptions& base, double* unmodified, const RerunHooks& hooks)
{
    expectImages(model, images);
    const ModelConfig& c = model.config();
    const ForwardOptions options = scoringOptions(base, hooks);
    const auto n = static_cast<double>(images.size());
    const int64_t total = static_cast<int64_t>(images.size()) * (1 + c.numLayers * c.numHeads);
    int64_t done = 0;
    const double reference = classSums(model, images, {}, options, hooks, done, total).logProb / n;
    if (unmodified) *unmodified = reference;
    Tensor importance({ c.numLayers, c.numHeads });
    for (int64_t l = 0; l < c.numLayers; ++l)
        for (int64_t h = 0; h < c.numHeads; ++h) {
            const ClassSum removed
                = classSums(model, images, headMaskWith({ { l, h } }, 0.0f, c), options, hooks, done, total);
            importance.data()[l * c.numHeads + h] = static_cast<float>(reference - removed.logProb / n);
        }
    return importance;
}

PruningCurve classPruning(const VisionModel& model, const std::vector<LabelledImage>& images, const Tensor& importance,
    const ForwardOptions& base, const RerunHooks& hooks)
{
    expectImages(model, images);
    const ModelConfig& c = model.config();
    importance.expectShape({ c.numLayers, c.numHeads }, "head importance");
    const ForwardOptions options = scoringOptions(base, hooks);
    PruningCurve curve;
    curve.order = pruningOrder(importance);
    const size_t heads = curve.order.size();
    const auto n = static_cast<double>(images.size());
    const int64_t total = static_cast<int64_t>(images.size() * (heads + 1));
    int64_t done = 0;
    std::vector<HeadRef> removed;
    for (size_t k = 0; k <= heads; ++k) {
        if (k > 0) removed.push_back(curve.order[k - 1]);
        const ClassSum sum = classSums(model, images, headMaskWith(removed, 0.0f, c), options, hooks, done, total);
        curve.removedShare.push_back(static_cast<double>(k) / static_cast<double>(heads));
        curve.loss.push_back(-sum.logProb / n);
        curve.accuracy.push_back(static_cast<double>(sum.correct) / n);
    }
    return curve;
}

int64_t labelInFileName(const VisionModel& model, const std::string& path)
{
    const std::vector<std::string> name = words(std::filesystem::path(path).stem().string());
    int64_t found = -1;
    for (int64_t i = 0; i < model.numLabels(); ++i) {
        const std::vector<std::string> label = words(model.label(i));
        if (label.empty() || label.size() > name.size()) continue;
        for (size_t at = 0; at + label.size() <= name.size(); ++at)
            if (std::equal(label.begin(), label.end(), name.begin() + static_cast<std::ptrdiff_t>(at))) {
                if (found >= 0 && found != i) return -1; // two classes named: no ground truth
                found = i;
            }
    }
    return found;
}

} // namespace attn
