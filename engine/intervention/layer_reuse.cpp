// SPDX-License-Identifier: MIT
#include "intervention/layer_reuse.h"

#include "intervention/continuation.h"

namespace attn {

ReusableRun::ReusableRun(const DecoderModel& model, std::vector<int64_t> tokens, const ForwardOptions& base)
    : m_model(model)
    , m_tokens(std::move(tokens))
    , m_options(base)
    , m_cache(model.newCache())
{
    m_options.intervention = nullptr;
    m_options.resume = nullptr;
    m_options.wantHiddenStates = true;
    m_clean = m_model.forward(m_cache, m_tokens, m_options);
    m_options.wantHiddenStates = false;
}

StepResult ReusableRun::rerun(const Intervention& intervention, bool wantAttention, const RerunHooks& hooks) const
{
    const int64_t first = firstChangedLayer(intervention, m_model.config().numLayers);
    if (first >= m_model.config().numLayers) {
        StepResult same = m_clean;
        same.hiddenStates.clear();
        return same;
    }
    const ResumePoint resume { first, &m_clean, &m_cache };
    ForwardOptions options = m_options;
    options.intervention = &intervention;
    options.wantAttention = wantAttention;
    options.resume = first > 0 ? &resume : nullptr;
    if (hooks.layerDone) options.layerDone = hooks.layerDone;
    if (hooks.cancelRequested) options.cancelRequested = hooks.cancelRequested;
    KvCache cache = m_model.newCache();
    return m_model.forward(cache, m_tokens, options);
}

std::vector<int64_t> ReusableRun::continuation(
    const Intervention* intervention, int64_t steps, int64_t stop, const RerunHooks& hooks) const
{
    ForwardOptions options = m_options;
    options.intervention = intervention;
    options.layerDone = {}; // a token's pass is short: the bar shows the diff's layers, cancel still applies
    if (hooks.cancelRequested) options.cancelRequested = hooks.cancelRequested;
    return greedyContinuation(m_model, m_tokens, steps, stop, options);
}

} // namespace attn
