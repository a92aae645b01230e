// SPDX-License-Identifier: MIT
#include "session/long_input.h"

#include "core/error.h"

namespace attn {

LongInputPlan planLongInput(const ModelSource& source, int64_t tokens, int64_t keepLast)
{
    const int64_t limit = source.config.maxPositions;
    if (keepLast < 0) throw Error("keep-last: " + std::to_string(keepLast) + " tokens is negative");
    LongInputPlan plan;
    plan.keep = tokens;
    if (keepLast > 0 && keepLast < tokens) {
        plan.action = LongInputPlan::Action::KeepLastTokens;
        plan.keep = std::min(keepLast, limit > 0 ? limit : keepLast);
    } else if (limit <= 0 || tokens <= limit) {
        return plan;
    } else if (source.config.ropeStyle != RopeStyle::None && source.config.kind == ModelKind::Decoder
        && source.format == ModelFormat::HfFolder) {
        // llama2.c files fix seq_len in their header, so only HF rotary decoders are extended.
        plan.action = LongInputPlan::Action::RunPastTrainedLength;
        plan.message = "warning: the input has " + std::to_string(tokens) + " tokens, past the " + std::to_string(limit)
            + " positions the model was trained on; rotary positions extend, but attention " + "past position "
            + std::to_string(limit) + " is outside what the model has seen";
        return plan;
    } else {
        plan.action = LongInputPlan::Action::KeepLastTokens;
        plan.keep = limit;
    }
    plan.message = "the input has " + std::to_string(tokens) + " tokens; keeping the last " + std::to_string(plan.keep)
        + " (dropped the first " + std::to_string(tokens - plan.keep) + ")"
        + (keepLast > 0 ? "" : " because the model has only " + std::to_string(limit) + " positions");
    return plan;
}

void applyLongInput(
    const LongInputPlan& plan, ModelSource& source, std::vector<int64_t>& ids, std::vector<int64_t>& types)
{
    if (plan.action == LongInputPlan::Action::RunPastTrainedLength) {
        // Dynamic NTK scaling grows the RoPE base with the length past the trained one: keep that one for it.
        RopeScaling& scaling = source.config.ropeScaling;
        if (scaling.type == RopeScaling::Type::Dynamic && scaling.originalMaxPositions == 0)
            scaling.originalMaxPositions = source.config.maxPositions;
        source.config.maxPositions = static_cast<int64_t>(ids.size());
    }
    if (plan.action != LongInputPlan::Action::KeepLastTokens) return;
    const auto drop = static_cast<std::ptrdiff_t>(ids.size()) - plan.keep;
    if (drop <= 0) return;
    ids.erase(ids.begin(), ids.begin() + drop);
    if (!types.empty()) types.erase(types.begin(), types.begin() + drop);
}

} // namespace attn
