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

/// The sum of the log-probabilities of the actual next tokens over the n - 1 predicted positions of one pass (as
/// logSoftmaxRows computes them, without holding every row's [vocab] of them: 206 MB per GPT-2 pass of 512 tokens).
double nextTokenLogProbSum(const StepResult& r)
{
    const int64_t v = r.logits.dim(1);
    double sum = 0.0;
    for (size_t i = 0; i + 1 < r.tokens.size(); ++i) {
        const float* row = r.logits.data() + static_cast<int64_t>(i) * v;
        sum += static_cast<double>(row[r.tokens[i + 1]]) - static_cast<double>(logSumExp(row, v));
    }
    return sum;
}

constexpr const char* kNothingToPredict
    = "head importance: no input has two tokens, so there is no next token to predict";

} // namespace

double meanNextTokenLogProb(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& headMask, const ForwardOptions& base)
{
    Intervention intervention;
    intervention.headMask = headMask;
    ForwardOptions options = base;
    options.wantAttention = false;
    options.wantHiddenStates = false;
    options.intervention = headMask.empty() ? nullptr : &intervention;
    double sum = 0.0;
    int64_t count = 0;
    for (const std::vector<int64_t>& tokens : inputs) {
        if (tokens.size() < 2) continue;
        KvCache cache = model.newCache();
        sum += nextTokenLogProbSum(model.forward(cache, tokens, options));
        count += static_cast<int64_t>(tokens.size()) - 1;
    }
    if (count == 0) throw Error(kNothingToPredict);
    return sum / static_cast<double>(count);
}

Tensor headImportance(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const ForwardOptions& base, double* unmodified)
{
    const ModelConfig& c = model.config();
    ForwardOptions options = base;
    options.wantAttention = false;
    options.intervention = nullptr;
    // Per input, the unmodified pass is kept and each head's removal re-runs only the layers from that head's.
    std::vector<double> removed(static_cast<size_t>(c.numLayers * c.numHeads), 0.0);
    double kept = 0.0;
    int64_t count = 0;
    for (const std::vector<int64_t>& tokens : inputs) {
        if (tokens.size() < 2) continue;
        const ReusableRun run(model, tokens, options);
        kept += nextTokenLogProbSum(run.clean());
        count += static_cast<int64_t>(tokens.size()) - 1;
        for (int64_t l = 0; l < c.numLayers; ++l)
            for (int64_t h = 0; h < c.numHeads; ++h) {
                Intervention removal;
                removal.headMask = headMaskWith({ { l, h } }, 0.0f, c);
                removed[static_cast<size_t>(l * c.numHeads + h)] += nextTokenLogProbSum(run.rerun(removal));
            }
    }
    if (count == 0) throw Error(kNothingToPredict);
    const double reference = kept / static_cast<double>(count);
    if (unmodified) *unmodified = reference;
    Tensor importance({ c.numLayers, c.numHeads });
    for (size_t i = 0; i < removed.size(); ++i)
        importance.data()[i] = static_cast<float>(reference - removed[i] / static_cast<double>(count));
    return importance;
}

PruningCurve greedyPruning(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& importance, const ForwardOptions& base)
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
    const auto total = static_cast<double>(curve.order.size());
    std::vector<HeadRef> removed;
    for (size_t k = 0; k <= curve.order.size(); ++k) {
        if (k > 0) removed.push_back(curve.order[k - 1]);
        curve.removedShare.push_back(static_cast<double>(k) / total);
        curve.loss.push_back(-meanNextTokenLogProb(model, inputs, headMaskWith(removed, 0.0f, c), base));
    }
    return curve;
}

} // namespace attn
