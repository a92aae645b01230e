// SPDX-License-Identifier: MIT
#pragma once
// Re-running one input under many interventions (head importance, leave-one-out key effects): the layers below the
// first one an intervention changes compute what the unmodified pass computed, so they are taken from it.
#include "intervention/intervention.h"
#include "model/kv_cache.h"
#include "model/model.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace attn {

/// Progress and cancel of one re-run (ForwardOptions::layerDone / cancelRequested); unset ones keep the constructor's.
struct RerunHooks {
    std::function<bool(int64_t done, int64_t total)> layerDone;
    std::function<bool()> cancelRequested;
};

class ReusableRun {
public:
    /// Runs `tokens` unmodified on a fresh cache with `base`'s options (its intervention ignored), keeping the hidden
    /// states and the keys and values of every layer.
    ReusableRun(const DecoderModel& model, std::vector<int64_t> tokens, const ForwardOptions& base);

    /// The unmodified pass (hiddenStates included).
    const StepResult& clean() const { return m_clean; }

    /// The pass of the same tokens under `intervention`, equal to a full forward with it: the layers from
    /// firstChangedLayer() on run again, the ones below are reused (an intervention that changes nothing returns the
    /// unmodified pass). Hidden states are not returned, attention only when asked (and the constructor's options
    /// asked for it too).
    StepResult rerun(const Intervention& intervention, bool wantAttention = false, const RerunHooks& hooks = {}) const;

    /// Up to `steps` greedy tokens after the input under `intervention` (null: unmodified), with the constructor's
    /// backend (greedyContinuation); `hooks` cancel it.
    std::vector<int64_t> continuation(
        const Intervention* intervention, int64_t steps, int64_t stop, const RerunHooks& hooks = {}) const;

private:
    const DecoderModel& m_model;
    std::vector<int64_t> m_tokens;
    ForwardOptions m_options;
    KvCache m_cache;
    StepResult m_clean;
};

} // namespace attn
