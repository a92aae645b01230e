// SPDX-License-Identifier: MIT
#include "intervention/intervention_diff.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>

namespace attn {

Intervention combinedAblations(const std::vector<Ablation>& ablations, const ModelConfig& config)
{
    Ablation means { {}, AblationMode::Mean, 0.0f };
    Tensor mask = headMaskWith({}, 1.0f, config);
    for (const Ablation& a : ablations)
        for (const HeadRef& h : a.heads) {
            if (h.layer < 0 || h.layer >= config.numLayers || h.head < 0 || h.head >= config.numHeads)
                throw Error("ablation: head " + std::to_string(h.layer) + "." + std::to_string(h.head)
                    + " is outside the model's " + std::to_string(config.numLayers) + " layers x "
                    + std::to_string(config.numHeads) + " heads");
            if (a.mode == AblationMode::Mean)
                means.heads.push_back(h);
            else
                mask.data()[h.layer * config.numHeads + h.head] *= a.mode == AblationMode::Zero ? 0.0f : a.factor;
        }
    Intervention combined = means.heads.empty() ? Intervention {} : ablationIntervention(means, config);
    combined.headMask = std::move(mask);
    return combined;
}

InterventionDiff diffIntervention(
    const ReusableRun& run, const Intervention& intervention, int64_t topK, const RerunHooks& hooks)
{
    const StepResult& clean = run.clean();
    if (clean.attention.empty()) throw Error("intervention diff: the unmodified pass kept no attention");
    StepResult changed = run.rerun(intervention, true, hooks);
    InterventionDiff diff;
    diff.kl = klPerRow(clean.logits, changed.logits);
    diff.cleanTop = topTokens(clean.logits, topK);
    diff.changedTop = topTokens(changed.logits, topK);
    diff.cleanLogits = clean.logits;
    diff.changedLogits = std::move(changed.logits);
    diff.cleanAttention = clean.attention;
    diff.changedAttention = std::move(changed.attention);
    diff.headChange = attentionChangePerHead(diff.cleanAttention, diff.changedAttention);
    return diff;
}

Tensor attentionChangePerHead(const std::vector<Tensor>& clean, const std::vector<Tensor>& changed)
{
    if (clean.empty() || clean.size() != changed.size() || clean.front().shape().size() != 3)
        throw Error("attention change: " + std::to_string(clean.size()) + " and " + std::to_string(changed.size())
            + " layers of [heads, queries, keys]");
    const int64_t heads = clean.front().dim(0), rows = clean.front().dim(1), keys = clean.front().dim(2);
    const auto layers = static_cast<int64_t>(clean.size());
    Tensor out({ layers, heads });
    for (int64_t l = 0; l < layers; ++l) {
        clean[static_cast<size_t>(l)].expectShape({ heads, rows, keys }, "attention change (unmodified)");
        changed[static_cast<size_t>(l)].expectShape({ heads, rows, keys }, "attention change (changed)");
        for (int64_t h = 0; h < heads; ++h) {
            const float* a = clean[static_cast<size_t>(l)].data() + h * rows * keys;
            const float* b = changed[static_cast<size_t>(l)].data() + h * rows * keys;
            double sum = 0.0;
            for (int64_t i = 0; i < rows * keys; ++i)
                sum += std::abs(static_cast<double>(b[i]) - static_cast<double>(a[i]));
            out.data()[l * heads + h] = static_cast<float>(0.5 * sum / static_cast<double>(std::max<int64_t>(rows, 1)));
        }
    }
    return out;
}

} // namespace attn
