// SPDX-License-Identifier: MIT
#include "analysis/head_importance.h"

#include "analysis/copy_positions.h"

#include "backend/cpu_workers.h"
#include "core/error.h"
#include "intervention/intervention.h"
#include "intervention/layer_reuse.h"
#include "model/kv_cache.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <thread>

namespace attn {
namespace {

/// Sums over the n - 1 predicted positions of passes.
struct ScoreSum {
    double logProb = 0.0;
    int64_t correct = 0;
    int64_t copies = 0; ///< predicted positions that copy (copyPositions)
    int64_t copiesCorrect = 0; ///< of those, the ones whose argmax is the actual next token

    void add(const ScoreSum& o)
    {
        logProb += o.logProb;
        correct += o.correct;
        copies += o.copies;
        copiesCorrect += o.copiesCorrect;
    }
};

/// Columns whose exponentials are summed in float before the sum goes on in double. Each term is at most 1 and
/// exact to a few ulp (Eigen's float exp; the argument row[j] - m rounded once, |x| 2^-24 for the terms that count),
/// and a block of 64 is summed in vector lanes of at most 16 terms each, so a block's sum is within about 18 x 2^-24 =
/// 1.1e-6 relative: the log-probability within a few 1e-6 nats of the double-precision one.
constexpr int64_t kExpBlock = 64;

/// Rows one task of the scoring takes (parallelFor).
constexpr int64_t kRowsPerTask = 32;

/// Log-probability of column `next` of one row of logits and whether it is the row's first largest entry: what
/// logSumExp and std::max_element gave, with the max, the exponentials and the sum vectorized (the scalar double exp
/// per column was 5 % of a head-importance profile, on one thread while the other core waited).
ScoreSum scoreRow(const float* row, int64_t v, int64_t next)
{
    const Eigen::Map<const Eigen::ArrayXf> r(row, v);
    const float m = r.maxCoeff();
    ScoreSum score;
    score.correct = row[next] == m && (next == 0 || r.head(next).maxCoeff() < m) ? 1 : 0;
    double sum = 0.0;
    for (int64_t j = 0; j < v; j += kExpBlock)
        sum += static_cast<double>((r.segment(j, std::min(kExpBlock, v - j)) - m).exp().sum());
    score.logProb = static_cast<double>(row[next]) - static_cast<double>(m) - std::log(sum);
    return score;
}

/// The log-probabilities of the actual next tokens of one pass and how many of them are the row's argmax, row by row
/// (without holding every row's [vocab] of log-probabilities: 206 MB per GPT-2 pass of 512 tokens), on every core.
/// Blocks are added in a fixed order, so the result does not depend on the threads. Asks options.cancelRequested
/// after each core's task of rows: a row is one log-sum-exp over the vocabulary (50,257 exponentials for GPT-2), and
/// 255 of them ran for over 400 ms on a loaded machine, past the 200 ms a cancel may take (issue 20).
ScoreSum nextTokenSums(const StepResult& r, const ForwardOptions& options)
{
    const int64_t v = r.logits.dim(1), rows = static_cast<int64_t>(r.tokens.size()) - 1;
    if (rows <= 0) return {};
    const int64_t tasks = (rows + kRowsPerTask - 1) / kRowsPerTask;
    const std::vector<bool> copy = copyPositions(r.tokens);
    std::vector<ScoreSum> parts(static_cast<size_t>(tasks));
    const int64_t tasksPerCheck = std::max<int64_t>(2, std::thread::hardware_concurrency()); // one per core
    for (int64_t first = 0; first < tasks; first += tasksPerCheck) {
        if (options.cancelRequested && options.cancelRequested()) throw Cancelled();
        parallelFor(std::min(tasksPerCheck, tasks - first), [&](int64_t k) {
            const int64_t t = first + k;
            ScoreSum& part = parts[static_cast<size_t>(t)];
            for (int64_t i = t * kRowsPerTask; i < std::min(rows, (t + 1) * kRowsPerTask); ++i) {
                ScoreSum s = scoreRow(r.logits.data() + i * v, v, r.tokens[static_cast<size_t>(i + 1)]);
                if (copy[static_cast<size_t>(i)]) {
                    s.copies = 1;
                    s.copiesCorrect = s.correct;
                }
                part.add(s);
            }
        });
    }
    ScoreSum sum;
    for (const ScoreSum& part : parts)
        sum.add(part);
    return sum;
}

/// Reports pass `done` of `total` to hooks.layerDone; Cancelled when it says stop.
void reportPass(const RerunHooks& hooks, int64_t done, int64_t total)
{
    if (hooks.layerDone && !hooks.layerDone(done, total)) throw Cancelled();
}

int64_t predictedPositions(const std::vector<std::vector<int64_t>>& inputs)
{
    int64_t count = 0;
    for (const std::vector<int64_t>& tokens : inputs)
        count += tokens.size() < 2 ? 0 : static_cast<int64_t>(tokens.size()) - 1;
    return count;
}

/// The means of `sum` over its `count` predicted positions.
NextTokenScore scoreOf(const ScoreSum& sum, int64_t count)
{
    const auto share = [](int64_t part, int64_t whole) {
        return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : std::nan("");
    };
    return { sum.logProb / static_cast<double>(count), share(sum.correct, count), sum.copies,
        share(sum.copiesCorrect, sum.copies) };
}

constexpr const char* kNothingToPredict
    = "head importance: no input has two tokens, so there is no next token to predict";

} // namespace

ForwardOptions scoringOptions(const ForwardOptions& base, const RerunHooks& hooks)
{
    ForwardOptions options = base;
    options.wantAttention = false;
    options.wantHiddenStates = false;
    options.wantQueryKeys = false;
    options.intervention = nullptr;
    options.layerDone = {}; // progress counts passes, not layers
    if (hooks.cancelRequested) options.cancelRequested = hooks.cancelRequested;
    return options;
}

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
        sum.add(nextTokenSums(model.forward(cache, tokens, options), options));
    }
    return scoreOf(sum, count);
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
        kept += nextTokenSums(run.clean(), options).logProb;
        reportPass(hooks, ++done, total);
        for (int64_t l = 0; l < c.numLayers; ++l)
            for (int64_t h = 0; h < c.numHeads; ++h) {
                Intervention removal;
                removal.headMask = headMaskWith({ { l, h } }, 0.0f, c);
                removed[static_cast<size_t>(l * c.numHeads + h)]
                    += nextTokenSums(run.rerun(removal, false, rerunHooks), options).logProb;
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

std::vector<HeadRef> pruningOrder(const Tensor& importance)
{
    if (importance.rank() != 2) throw Error("head importance: expected [layers, heads]");
    const int64_t heads = importance.dim(1);
    std::vector<HeadRef> order;
    for (int64_t l = 0; l < importance.dim(0); ++l)
        for (int64_t h = 0; h < heads; ++h)
            order.push_back({ l, h });
    std::stable_sort(order.begin(), order.end(), [&](const HeadRef& a, const HeadRef& b) {
        return importance.data()[a.layer * heads + a.head] < importance.data()[b.layer * heads + b.head];
    });
    return order;
}

PruningCurve greedyPruning(const DecoderModel& model, const std::vector<std::vector<int64_t>>& inputs,
    const Tensor& importance, const ForwardOptions& base, const RerunHooks& hooks)
{
    const ModelConfig& c = model.config();
    importance.expectShape({ c.numLayers, c.numHeads }, "head importance");
    PruningCurve curve;
    curve.order = pruningOrder(importance);
    const ForwardOptions options = scoringOptions(base, hooks);
    const int64_t count = predictedPositions(inputs);
    if (count == 0) throw Error(kNothingToPredict);
    const size_t heads = curve.order.size();
    const auto steps = static_cast<int64_t>(inputs.size() * (heads + 1));
    int64_t done = 0;
    // Step k removes the heads of step k - 1 and one more, order[k - 1]: the layers below that head's compute what
    // they computed at step k - 1, so each step resumes from the previous one's residual and keys there. Inputs are
    // the outer loop so that only one input's previous pass is held.
    std::vector<ScoreSum> sums(heads + 1);
    for (const std::vector<int64_t>& tokens : inputs) {
        if (tokens.size() < 2) {
            done += static_cast<int64_t>(heads + 1);
            continue;
        }
        std::vector<HeadRef> removed;
        StepResult previous;
        KvCache previousCache = model.newCache();
        for (size_t k = 0; k <= heads; ++k) {
            if (k > 0) removed.push_back(curve.order[k - 1]);
            Intervention removal;
            removal.headMask = headMaskWith(removed, 0.0f, c);
            const ResumePoint resume { k > 0 ? curve.order[k - 1].layer : 0, &previous, &previousCache };
            ForwardOptions pass = options;
            pass.intervention = &removal;
            pass.wantHiddenStates = true; // the next step resumes from them
            pass.resume = resume.layer > 0 ? &resume : nullptr;
            KvCache cache = model.newCache();
            StepResult result = model.forward(cache, tokens, pass);
            sums[k].add(nextTokenSums(result, pass));
            previous = std::move(result);
            previousCache = std::move(cache);
            reportPass(hooks, ++done, steps);
        }
    }
    curve.copyPositions = sums.front().copies;
    for (size_t k = 0; k <= heads; ++k) {
        const NextTokenScore score = scoreOf(sums[k], count);
        curve.removedShare.push_back(static_cast<double>(k) / static_cast<double>(heads));
        curve.loss.push_back(-score.logProb);
        curve.accuracy.push_back(score.accuracy);
        if (curve.copyPositions > 0) curve.copyAccuracy.push_back(score.copyAccuracy);
    }
    return curve;
}

} // namespace attn
