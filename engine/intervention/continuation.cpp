// SPDX-License-Identifier: MIT
#include "intervention/continuation.h"

#include "intervention/intervention.h"
#include "model/kv_cache.h"
#include "session/sampler.h"

namespace attn {

std::vector<int64_t> greedyContinuation(
    const DecoderModel& model, std::vector<int64_t> tokens, int64_t steps, int64_t stop, const ForwardOptions& options)
{
    ForwardOptions pass = options;
    pass.wantAttention = false;
    pass.wantHiddenStates = false;
    pass.lastLogitsOnly = true;
    pass.resume = nullptr;
    const bool wholeSequence = pass.intervention && (pass.intervention->editHeads || pass.intervention->editResidual);
    const int64_t vocab = model.config().vocabSize;
    std::vector<int64_t> out;
    KvCache cache = model.newCache();
    std::vector<int64_t> next = tokens; // what the next pass runs: all of it first
    while (
        static_cast<int64_t>(out.size()) < steps && static_cast<int64_t>(tokens.size()) < model.config().maxPositions) {
        if (wholeSequence) {
            cache = model.newCache();
            next = tokens;
        }
        const StepResult r = model.forward(cache, next, pass);
        const int64_t token = argmax(r.logits.data() + (r.logits.dim(0) - 1) * vocab, vocab);
        out.push_back(token);
        tokens.push_back(token);
        next = { token };
        if (token == stop) break;
    }
    return out;
}

} // namespace attn
