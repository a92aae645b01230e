// SPDX-License-Identifier: MIT
#pragma once
// One answer of the Logit lens tab: the lens of every layer at every position of the main input.
#include "intervention/kept_run.h"
#include "intervention/logit_lens.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace attn::ui {

struct LensResult {
    std::vector<int64_t> tokens;
    LogitLens lens;
    std::unordered_map<int64_t, std::string> text; ///< every id of `tokens`, the top lists and the chosen tokens
};
using LensResultPtr = std::shared_ptr<const LensResult>;

/// On the engine thread: the lens of `kept`, five top tokens per layer and position.
LensResultPtr computeLens(const KeptRun& kept, const RerunHooks& hooks);

} // namespace attn::ui
