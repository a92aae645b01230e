// SPDX-License-Identifier: MIT
#pragma once
// Inputs longer than the positions a model was trained on: never only refused. Rotary-position decoders compute any
// position, so they run past the trained length with a warning; a model with a learned position table has no entry
// past its end, so it keeps the last tokens that fit, saying how many were dropped.
#include "model/model_source.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

struct LongInputPlan {
    enum class Action { Fits, RunPastTrainedLength, KeepLastTokens };
    Action action = Action::Fits;
    int64_t keep = 0; ///< tokens that will run (all of them unless KeepLastTokens)
    std::string message; ///< for the user; empty when the input fits
};

/// What to do with `tokens` input tokens on the model `source` describes. `keepLast` > 0 asks to keep only the last
/// keepLast tokens whatever the model (a user's choice); 0 chooses by the model's position scheme.
LongInputPlan planLongInput(const ModelSource& source, int64_t tokens, int64_t keepLast = 0);

/// Applies a plan before loading: raises source.config.maxPositions for RunPastTrainedLength, drops the leading
/// tokens (and their token types, when given) for KeepLastTokens.
void applyLongInput(
    const LongInputPlan& plan, ModelSource& source, std::vector<int64_t>& ids, std::vector<int64_t>& types);

} // namespace attn
