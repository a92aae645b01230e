// SPDX-License-Identifier: MIT
#include "model/attention_snapshot.h"

#include "core/error.h"

#include <limits>

namespace attn::ui {

AttentionSnapshot::AttentionSnapshot(
    std::vector<TokenChip> tokens, std::vector<Tensor> layers, int64_t numKvHeads, MaskSpec mask,
    std::vector<TokenChip> queryTokens, Stats stats)
    : m_tokens(std::move(tokens))
    , m_queryTokens(std::move(queryTokens))
    , m_layers(std::move(layers))
    , m_mask(std::move(mask)) {
    if (m_layers.empty()) throw Error("attention snapshot: no layers");
    const Tensor& first = m_layers.front();
    if (first.rank() != 3)
        throw Error("attention snapshot: expected [heads, q, k] per layer, got " + shapeToString(first.shape()));
    m_numHeads = first.dim(0);
    m_numQueries = first.dim(1);
    m_numKeys = first.dim(2);
    m_numKvHeads = numKvHeads > 0 ? numKvHeads : m_numHeads;
    if (m_numHeads % m_numKvHeads != 0)
        throw Error("attention snapshot: " + std::to_string(m_numHeads) + " heads do not split into "
            + std::to_string(m_numKvHeads) + " kv heads");
    for (size_t l = 0; l < m_layers.size(); ++l)
        m_layers[l].expectShape(first.shape(), "attention snapshot layer " + std::to_string(l));
    if (static_cast<int64_t>(m_tokens.size()) != m_numKeys)
        throw Error("attention snapshot: " + std::to_string(m_tokens.size()) + " tokens for "
            + std::to_string(m_numKeys) + " keys");
    if (static_cast<int64_t>(this->queryTokens().size()) != m_numQueries)
        throw Error("attention snapshot: " + std::to_string(this->queryTokens().size()) + " query tokens for "
            + std::to_string(m_numQueries) + " queries");
    m_mask.keepMask = nullptr;
    m_mask.bias = nullptr;
    if (stats == Stats::Skip) return;
    m_stats.reserve(m_layers.size());
    for (const Tensor& layer : m_layers)
        m_stats.push_back(computeLayerHeadStats(layer, m_mask));
    if (!isCross()) return;
    // Queries and keys are positions in two different sequences: distances, the previous token and the diagonal
    // are undefined there, not zero (NaN also keeps the previous-token role from being assigned).
    const double undefined = std::numeric_limits<double>::quiet_NaN();
    for (std::vector<HeadStats>& layer : m_stats)
        for (HeadStats& head : layer)
            head.meanDistance = head.previousToken = head.diagonal = undefined;
}

void AttentionSnapshot::checkIndex(int64_t layer, int64_t head) const {
    if (layer < 0 || layer >= numLayers() || head < 0 || head >= m_numHeads)
        throw Error("attention snapshot: no head " + std::to_string(layer) + "." + std::to_string(head) + " (model has "
            + std::to_string(numLayers()) + " layers x " + std::to_string(m_numHeads) + " heads)");
}

const float* AttentionSnapshot::head(int64_t layer, int64_t head) const {
    checkIndex(layer, head);
    return m_layers[static_cast<size_t>(layer)].data() + head * m_numQueries * m_numKeys;
}

const Tensor& AttentionSnapshot::layer(int64_t layer) const {
    checkIndex(layer, 0);
    return m_layers[static_cast<size_t>(layer)];
}

const HeadStats& AttentionSnapshot::stats(int64_t layer, int64_t head) const {
    checkIndex(layer, head);
    if (!hasStats()) throw Error("attention snapshot: head statistics were not computed for this snapshot");
    return m_stats[static_cast<size_t>(layer)][static_cast<size_t>(head)];
}

} // namespace attn::ui
