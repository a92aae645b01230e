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

namespace {

void add(HeadEntropyMap& map, const HeadStats& stats, const HeadActivityThresholds& thresholds)
{
    map.stats.push_back(stats);
    map.activity.push_back(classifyActivity(stats, thresholds));
}

} // namespace

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
            add(map, computeHeadStats(probs.data(), T, T, mask), thresholds);
        }
    return map;
}

HeadEntropyMap headEntropyMap(
    const std::vector<Tensor>& attention, const MaskSpec& mask, const HeadActivityThresholds& thresholds)
{
    if (attention.empty()) throw Error("head entropy: the pass kept no attention");
    HeadEntropyMap map;
    map.layers = static_cast<int64_t>(attention.size());
    for (const Tensor& layer : attention) {
        if (layer.rank() != 3) throw Error("head entropy: a layer's attention is not [heads, queries, keys]");
        if (map.heads == 0) map.heads = layer.dim(0);
        if (layer.dim(0) != map.heads) throw Error("head entropy: the layers' head counts differ");
        for (const HeadStats& stats : computeLayerHeadStats(layer, mask))
            add(map, stats, thresholds);
    }
    return map;
}

} // namespace attn
