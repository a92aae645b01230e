// SPDX-License-Identifier: MIT
#include "intervention/ablation_result.h"

namespace attn::ui {

namespace {
constexpr int64_t kTopTokens = 5;
} // namespace

AblationResultPtr computeAblation(const KeptRun& kept, const std::vector<Ablation>& ablations, const RerunHooks& hooks)
{
    auto result = std::make_shared<AblationResult>();
    const Intervention combined = combinedAblations(ablations, kept.model->config());
    result->diff = diffIntervention(*kept.run, combined, kTopTokens, hooks);
    if (!kept.cleanContinuation)
        kept.cleanContinuation = kept.run->continuation(nullptr, kContinuationTokens, kept.stopToken, hooks);
    result->cleanContinuation = *kept.cleanContinuation;
    result->changedContinuation = ablations.empty()
        ? result->cleanContinuation
        : kept.run->continuation(&combined, kContinuationTokens, kept.stopToken, hooks);
    addTokenTexts(kept, result->cleanContinuation, result->text);
    addTokenTexts(kept, result->changedContinuation, result->text);
    result->ablations = ablations;
    result->tokens = kept.tokens;
    addTokenTexts(kept, kept.tokens, result->text);
    for (const auto* lists : { &result->diff.cleanTop, &result->diff.changedTop })
        for (const auto& top : *lists)
            for (const TopToken& t : top)
                addTokenTexts(kept, { t.id }, result->text);
    return result;
}

} // namespace attn::ui
