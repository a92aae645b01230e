// SPDX-License-Identifier: MIT
#include "session/prompt_run.h"

#include "attention_source/summary_collector.h"
#include "session/session.h"

#include <optional>

namespace attn {

bool derivesAttention(const ModelConfig& config, int64_t tokens, const PromptOptions& options, std::string* why)
{
    if (options.forward.intervention) {
        if (why) *why = "a head mask";
        return false;
    }
    if (!Session::canDeriveAttention(config, why)) return false;
    const auto n = static_cast<uint64_t>(tokens);
    return static_cast<uint64_t>(config.numLayers * config.numHeads) * n * n * sizeof(float) > options.materializeBytes;
}

PromptRun runPrompt(std::shared_ptr<const Model> model, const std::vector<int64_t>& ids,
    const std::vector<int64_t>& types, const PromptOptions& options)
{
    const ModelConfig& c = model->config();
    const auto n = static_cast<int64_t>(ids.size());
    ForwardOptions forward = options.forward;
    const bool derived = derivesAttention(c, n, options);
    forward.wantAttention = !derived;
    forward.wantQueryKeys = derived;
    PromptRun run;
    if (!derived) {
        Session session(std::move(model), forward);
        run.result = session.prefill(ids, types);
        return run;
    }
    std::optional<SummaryCollector> summaries;
    if (options.summarize && n > 0) {
        summaries.emplace(c.numLayers, c.numHeads, n, Session::decoderMask(c));
        forward.observeAttention = [&summaries](int64_t layer, int64_t head, int64_t query, int64_t rows,
                                       const float* p) { summaries->add(layer, head, query, rows, p); };
    }
    auto session = std::make_shared<Session>(std::move(model), forward);
    run.result = session->prefill(ids, types);
    forward.observeAttention = nullptr; // the collector lives only as long as this call
    if (options.tilesOnCpu) {
        forward.backend = nullptr;
        forward.layerDone = nullptr;
        forward.cancelRequested = nullptr;
    }
    session->setOptions(forward);
    run.derived = session->attentionSource(session);
    if (summaries) summaries->deliver(*run.derived);
    return run;
}

} // namespace attn
