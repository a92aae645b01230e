// SPDX-License-Identifier: MIT
#include "intervention/intervention_diff.h"

#include "core/error.h"

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
    return diff;
}

} // namespace attn
