// SPDX-License-Identifier: MIT
#include "attention_source/summary_collector.h"

#include "attention_source/attention_source.h"
#include "core/error.h"

#include <string>

namespace attn {

SummaryCollector::SummaryCollector(int64_t layers, int64_t heads, int64_t numQueries, MaskSpec mask)
    : m_heads(heads)
    , m_numQueries(numQueries)
    , m_mask(std::move(mask))
{
    if (layers < 1 || heads < 1 || numQueries < 1)
        throw Error("summary collector: " + std::to_string(layers) + " layers, " + std::to_string(heads) + " heads, "
            + std::to_string(numQueries) + " positions");
    // The thumbnail's finest block, as AttentionSource::overview(..., kThumbnailSide) builds it.
    const int64_t block = overviewBlock(numQueries, numQueries, AttentionSource::kThumbnailSide);
    m_summaries.reserve(static_cast<size_t>(layers * heads));
    for (int64_t i = 0; i < layers * heads; ++i)
        m_summaries.push_back({ {}, OverviewBuilder(numQueries, numQueries, block, m_mask), 0, false });
}

void SummaryCollector::add(int64_t layer, int64_t head, int64_t query, int64_t rows, const float* probs)
{
    const int64_t index = layer * m_heads + head;
    if (layer < 0 || head < 0 || head >= m_heads || index >= static_cast<int64_t>(m_summaries.size())) return;
    Head& h = m_summaries[static_cast<size_t>(index)];
    if (h.broken || query != h.nextRow || rows < 1 || query + rows > m_numQueries) {
        h.broken = true; // out of order: the source streams this head itself
        return;
    }
    MaskSpec rowMask = m_mask;
    rowMask.queryOffset += query;
    h.stats.add(probs, rows, m_numQueries, rowMask);
    h.thumbnail.add(query, rows, probs);
    h.nextRow += rows;
}

int64_t SummaryCollector::deliver(const AttentionSource& source) const
{
    int64_t delivered = 0;
    for (size_t i = 0; i < m_summaries.size(); ++i) {
        const Head& h = m_summaries[i];
        if (h.broken || h.nextRow != m_numQueries) continue;
        const auto layer = static_cast<int64_t>(i) / m_heads, head = static_cast<int64_t>(i) % m_heads;
        source.adoptSummary(layer, head, h.stats.result(), h.thumbnail.finish());
        ++delivered;
    }
    return delivered;
}

} // namespace attn
