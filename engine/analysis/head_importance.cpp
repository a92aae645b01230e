// SPDX-License-Identifier: MIT
#include "analysis/head_importance.h"

#include "attention/attention.h"
#include "core/error.h"
#include "intervention/intervention.h"
#include "intervention/layer_reuse.h"
#include "model/kv_cache.h"

#include <algorithm>

namespace attn {
namespace {

/// Sums over the n - 1 predicted positions of passes.
struct ScoreSum {
    double logProb = 0.0;
    int64_t correct = 0;
};

/// The log-probabilities of the actual next tokens of one pass (as logSoftmaxRows computes them, without holding
/// every row's [vocab] of them: 206 MB per GPT-2 pass of 512 tokens) and how many of them are the row's argmax.
ScoreSum nextTokenSums(const StepResult& r)
{
    const int64_t v = r.logits.dim(1);
    ScoreSum sum;
    for (size_t i = 0; i + 1 < r.tokens.size(); ++i) {
        const float* row = r.logits.data() + static_cast<int64_t>(i) * v;
        sum.logProb += static_cast<double>(row[r.tokens[i + 1]]) - static_cast<double>(logSumExp(row, v));
        sum.correct += std::max_element(row, row + v) - row == r.tokens[i + 1] ? 1 : 0;
    }
    return sum;
}

/// Reports pass `done` of `total` to hooks.layerDone; Cancelled when it says stop.
void reportPass(const RerunHooks& hooks, int64_t done, int64_t total)
{
    if (hooks.layerDone && !hooks.layerDone(done, total)) throw Cancelled();
}

/// `base` for the passes of importance and pruning: logits only, cancelled by `hooks`.
ForwardOptions scoringOptions(const ForwardOptions& base, const RerunHooks& hooks)
{
    ForwardOptions options = base;
    options.wantAttention = false;
    options.wantHiddenStates = false;
    options.intervention = nullptr;
    options.layerDone = {}; // progress counts passes, not layers
    if (hooks.cancelRequested) options.cancelRequested = hooks.cancelRequested;
    return options;
}

int64_t predictedPositions(const std::vector<std::vector<int64_t>>& inputs)
{
    int64_t count = 0;
    for (const std::vector<int64_t>& tokens : inputs)
        count += tokens.size() < 2 ? 0 : static_cast<int64_t>(tokens.size()) - 1;
    return count;
}

constexpr const char* kNothingToPredict
    = "head importance: no input has two tokens, so there is no next token to predict";

} // namespace

NextTokenScore nextTokenScore(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& headMask, const ForwardOptions& base)
{
    const int64_t count = predictedPositions(inputs);
    if (count == 0) throw Error(kNothingToPredict);
    Intervention intervention;
    intervention.headMask = headMask;
    ForwardOptions options = scoringOptions(base, {});
    options.layerDone = base.layerDone;
    options.intervention = headMask.empty() ? nullptr : &intervention;
    ScoreSum sum;
    for (const std::vector<int64_t>& tokens : inputs) {
        if (tokens.size() < 2) continue;
        KvCache cache = model.newCache();
        const ScoreSum pass = nextTokenSums(model.forward(cache, tokens, options));
        sum.logProb += pass.logProb;
        sum.correct += pass.correct;
    }
    return { sum.logProb / static_cast<double>(count), static_cast<double>(sum.correct) / static_cast<double>(count) };
}

double meanNextTokenLogProb(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& headMask, const ForwardOptions& base)
{
    return nextTokenScore(model, inputs, headMask, base).logProb;
}

Tensor headImportance(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const ForwardOptions& base, double* unmodified, const RerunHooks& hooks)
{
    const ModelConfig& c = model.config();
    const int64_t count = predictedPositions(inputs);
    if (count == 0) throw Error(kNothingToPredict);
    const ForwardOptions options = scoringOptions(base, hooks);
    const RerunHooks rerunHooks { {}, hooks.cancelRequested };
    const int64_t heads = c.numLayers * c.numHeads, total = static_cast<int64_t>(inputs.size()) * (1 + heads);
    int64_t done = 0;
    // Per input, the unmodified pass is kept and each head's removal re-runs only the layers from that head's.
    std::vector<double> removed(static_cast<size_t>(heads), 0.0);
    double kept = 0.0;
    for (const std::vector<int64_t>& tokens : inputs) {
        if (tokens.size() < 2) {
            done += 1 + heads;
            continue;
        }
        const ReusableRun run(model, tokens, options);
        kept += nextTokenSums(run.clean()).logProb;
        reportPass(hooks, ++done, total);
        for (int64_t l = 0; l < c.numLayers; ++l)
            for (int64_t h = 0; h < c.numHeads; ++h) {
                Intervention removal;
                removal.headMask = headMaskWith({ { l, h } }, 0.0f, c);
                removed[static_cast<size_t>(l * c.numHeads + h)]
                    += nextTokenSums(run.rerun(removal, false, rerunHooks)).logProb;
                reportPass(hooks, ++done, total);
            }
    }
    const double reference = kept / static_cast<double>(count);
    if (unmodified) *unmodified = reference;
    Tensor importance({ c.numLayers, c.numHeads });
    for (size_t i = 0; i < removed.size(); ++i)
        importance.data()[i] = static_cast<float>(reference - removed[i] / static_cast<double>(count));
    return importance;
}

PruningCurve greedyPruning(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& importance, const ForwardOptions& base, const RerunHooks& hooks)
{
    const ModelConfig& c = model.config();
    importance.expectShape({ c.numLayers, c.numHeads }, "head importance");
    PruningCurve curve;
    for (int64_t l = 0; l < c.numLayers; ++l)
        for (int64_t h = 0; h < c.numHeads; ++h)
            curve.order.push_back({ l, h });
    std::stable_sort(curve.order.begin(), curve.order.end(), [&](const HeadRef& a, const HeadRef& b) {
        return importance.data()[a.layer * c.numHeads + a.head] < importance.data()[b.layer * c.numHeads + b.head];
    });
    const ForwardOptions options = scoringOptions(base, hooks);
    const auto total = static_cast<double>(curve.order.size());
    const auto steps = static_cast<int64_t>(curve.order.size() + 1);
    std::vector<HeadRef> removed;
    for (size_t k = 0; k <= curve.order.size(); ++k) {
        if (k > 0) removed.push_back(curve.order[k - 1]);
        curve.removedShare.push_back(static_cast<double>(k) / total);
        const NextTokenScore score = nextTokenScore(model, inputs, headMaskWith(removed, 0.0f, c), options);
        curve.loss.push_back(-score.logProb);
        curve.accuracy.push_back(score.accuracy);
        reportPass(hooks, static_cast<int64_t>(k + 1), steps);
    }
    return curve;
}

} // namespace attn
