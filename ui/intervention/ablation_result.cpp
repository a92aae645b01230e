// SPDX-License-Identifier: MIT
#include "intervention/ablation_result.h"

namespace attn::ui {

namespace {
constexpr int64_t kTopTokens = 5;
} // namespace

AblationResultPtr computeAblation(const KeptRun& kept, const std::vector<Ablation>& ablations, const RerunHooks& hooks) {
    auto result = std::make_shared<AblationResult>();
    result->diff = diffIntervention(*kept.run, combinedAblations(ablations, kept.model->config()), kTopTokens, hooks);
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
