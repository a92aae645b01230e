// SPDX-License-Identifier: MIT
#include "mechanisms/head_entropy_map.h"

#include "core/error.h"
#include "session/session.h"

namespace attn {

HeadActivity classifyActivity(const HeadStats& stats, const HeadActivityThresholds& thresholds)
{
    if (stats.normalizedEntropy >= thresholds.nearUniform) return HeadActivity::NearUniform;
    if (stats.normalizedEntropy <= thresholds.nearOneHot) return HeadActivity::NearOneHot;
    return HeadActivity::Normal;
}

HeadEntropyMap headEntropyMap(const Session& session, const HeadActivityThresholds& thresholds)
{
    const ModelConfig& c = session.model().config();
    const int64_t T = session.length();
    if (T == 0) throw Error(c.source, "no input has run yet");
    MaskSpec mask;
    mask.causal = session.isDecoder();
    mask.slidingWindow = session.isDecoder() ? c.slidingWindow : 0;
    HeadEntropyMap map;
    map.layers = c.numLayers;
    map.heads = c.numHeads;
    for (int64_t l = 0; l < c.numLayers; ++l)
        for (int64_t h = 0; h < c.numHeads; ++h) {
            const Tensor probs = session.attentionRows(l, h, 0, T);
            map.stats.push_back(computeHeadStats(probs.data(), T, T, mask));
            map.activity.push_back(classifyActivity(map.stats.back(), thresholds));
        }
    return map;
}

} // namespace attn
