// SPDX-License-Identifier: MIT
#include "intervention/lens_result.h"

namespace attn::ui {

namespace {
constexpr int64_t kTopTokens = 5;
} // namespace

LensResultPtr computeLens(const KeptRun& kept, const RerunHooks& hooks) {
    auto result = std::make_shared<LensResult>();
    result->lens = logitLens(*kept.run, kTopTokens, hooks);
    result->tokens = kept.tokens;
    addTokenTexts(kept, kept.tokens, result->text);
    addTokenTexts(kept, result->lens.chosen, result->text);
    for (const auto& layer : result->lens.top)
        for (const auto& top : layer)
            for (const TopToken& t : top)
                addTokenTexts(kept, { t.id }, result->text);
    return result;
}

} // namespace attn::ui
