// SPDX-License-Identifier: MIT
#include "mechanisms/head_entropy_map.h"

#include "core/error.h"
#include "session/session.h"

#include <algorithm>

namespace attn {

HeadActivity classifyActivity(const HeadStats& stats, const HeadActivityThresholds& thresholds)
{
    if (stats.normalizedEntropy >= thresholds.nearUniform) return HeadActivity::NearUniform;
    if (stats.normalizedEntropy <= thresholds.nearOneHot) return HeadActivity::NearOneHot;
    return HeadActivity::Normal;
}

namespace {

void addHead(HeadEntropyMap& map, const HeadStats& stats, const HeadActivityThresholds& thresholds)
{
    map.stats.push_back(stats);
    map.activity.push_back(classifyActivity(stats, thresholds));
}

/// The structural mask of the session's attention (an encoder's: none).
MaskSpec sessionMask(const Session& session)
{
    return session.isDecoder() ? Session::decoderMask(session.model().config()) : MaskSpec {};
}

HeadStats derivedHeadStats(const Session& session, int64_t layer, int64_t head, const MaskSpec& mask)
{
    const int64_t T = session.length();
    const Tensor probs = session.attentionRows(layer, head, 0, T);
    return computeHeadStats(probs.data(), T, T, mask);
}

} // namespace

HeadEntropyMap headEntropyMap(const Session& session, const HeadActivityThresholds& thresholds)
{
    const ModelConfig& c = session.model().config();
    if (session.length() == 0) throw Error(c.source, "no input has run yet");
    const MaskSpec mask = sessionMask(session);
    HeadEntropyMap map;
    map.layers = c.numLayers;
    map.heads = c.numHeads;
    for (int64_t l = 0; l < c.numLayers; ++l)
        for (int64_t h = 0; h < c.numHeads; ++h)
            addHead(map, derivedHeadStats(session, l, h, mask), thresholds);
    return map;
}

HeadEntropyCollector::HeadEntropyCollector(int64_t layers, int64_t heads, int64_t tokens, MaskSpec mask)
    : m_layers(layers)
    , m_heads(heads)
    , m_tokens(tokens)
    , m_mask(std::move(mask))
    , m_collected(static_cast<size_t>(std::max<int64_t>(0, layers * heads)))
{
}

void HeadEntropyCollector::add(int64_t layer, int64_t head, int64_t query, int64_t rows, const float* probs)
{
    if (layer < 0 || layer >= m_layers || head < 0 || head >= m_heads) return;
    Head& h = m_collected[static_cast<size_t>(layer * m_heads + head)];
    if (h.broken || query != h.nextRow || rows < 1 || query + rows > m_tokens) {
        h.broken = true;
        return;
    }
    MaskSpec rowMask = m_mask;
    rowMask.queryOffset += query;
    h.stats.add(probs, rows, m_tokens, rowMask);
    h.nextRow += rows;
}

HeadEntropyMap HeadEntropyCollector::map(const Session& session, const HeadActivityThresholds& thresholds) const
{
    const ModelConfig& c = session.model().config();
    if (session.length() != m_tokens || c.numLayers != m_layers || c.numHeads != m_heads)
        throw Error(c.source, "head entropy: the session is not the pass that was observed");
    HeadEntropyMap map;
    map.layers = m_layers;
    map.heads = m_heads;
    const MaskSpec mask = sessionMask(session);
    for (int64_t l = 0; l < m_layers; ++l)
        for (int64_t h = 0; h < m_heads; ++h) {
            const Head& head = m_collected[static_cast<size_t>(l * m_heads + h)];
            const bool whole = !head.broken && head.nextRow == m_tokens;
            addHead(map, whole ? head.stats.result() : derivedHeadStats(session, l, h, mask), thresholds);
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
            addHead(map, stats, thresholds);
    }
    return map;
}

} // namespace attn
