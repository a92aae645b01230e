// SPDX-License-Identifier: MIT
#include "model/attention_snapshot.h"

#include "core/error.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace attn::ui {
namespace {

// Queries and keys are positions in two different sequences: distances, the previous token and the diagonal are
// undefined there, not zero (NaN also keeps the previous-token role from being assigned).
HeadStats crossStats(HeadStats s) {
    const double undefined = std::numeric_limits<double>::quiet_NaN();
    s.meanDistance = s.previousToken = s.diagonal = undefined;
    return s;
}

} // namespace

AttentionSnapshot::AttentionSnapshot(
    std::vector<TokenChip> tokens, std::vector<Tensor> layers, int64_t numKvHeads, MaskSpec mask,
    std::vector<TokenChip> queryTokens, Stats stats, std::vector<int64_t> layerWindows)
    : m_tokens(std::move(tokens))
    , m_queryTokens(std::move(queryTokens))
    , m_layers(std::move(layers))
    , m_mask(std::move(mask)) {
    if (m_layers.empty()) throw Error("attention snapshot: no layers");
    const Tensor& first = m_layers.front();
    if (first.rank() != 3)
        throw Error("attention snapshot: expected [heads, q, k] per layer, got " + shapeToString(first.shape()));
    m_numLayers = static_cast<int64_t>(m_layers.size());
    m_numHeads = first.dim(0);
    m_numQueries = first.dim(1);
    m_numKeys = first.dim(2);
    m_numKvHeads = numKvHeads > 0 ? numKvHeads : m_numHeads;
    if (m_numHeads % m_numKvHeads != 0)
        throw Error("attention snapshot: " + std::to_string(m_numHeads) + " heads do not split into "
            + std::to_string(m_numKvHeads) + " kv heads");
    for (size_t l = 0; l < m_layers.size(); ++l)
        m_layers[l].expectShape(first.shape(), "attention snapshot layer " + std::to_string(l));
    checkTokens();
    m_mask.keepMask = nullptr;
    m_mask.bias = nullptr;
    if (!layerWindows.empty()) {
        if (static_cast<int64_t>(layerWindows.size()) != m_numLayers)
            throw Error("attention snapshot: " + std::to_string(layerWindows.size()) + " layer windows for "
                + std::to_string(m_numLayers) + " layers");
        for (const int64_t window : layerWindows) {
            m_layerMasks.push_back(m_mask);
            m_layerMasks.back().slidingWindow = window;
        }
    }
    if (stats == Stats::Skip) return;
    m_stats.reserve(m_layers.size());
    for (int64_t l = 0; l < m_numLayers; ++l)
        m_stats.push_back(computeLayerHeadStats(m_layers[static_cast<size_t>(l)], this->mask(l)));
    // The grid's thumbnails too, here on the engine thread: built on the GUI thread, all heads of a 512-token input
    // kept the window from drawing for half a second after each run (and again for each grid export).
    m_thumbnails.reserve(static_cast<size_t>(m_numLayers * m_numHeads));
    for (int64_t l = 0; l < m_numLayers; ++l)
        for (int64_t h = 0; h < m_numHeads; ++h)
            m_thumbnails.push_back(buildOverview(l, h, AttentionSource::kThumbnailSide));
    if (!isCross()) return;
    for (std::vector<HeadStats>& layer : m_stats)
        for (HeadStats& head : layer)
            head = crossStats(head);
}

AttentionSnapshot::AttentionSnapshot(
    std::vector<TokenChip> tokens, std::shared_ptr<const AttentionSource> source, std::vector<TokenChip> queryTokens)
    : m_tokens(std::move(tokens))
    , m_queryTokens(std::move(queryTokens))
    , m_source(std::move(source)) {
    if (!m_source) throw Error("attention snapshot: no attention source");
    m_numLayers = m_source->numLayers();
    m_numHeads = m_source->numHeads();
    m_numKvHeads = m_source->numKvHeads();
    m_numQueries = m_source->numQueries();
    m_numKeys = m_source->numKeys();
    m_mask = m_source->mask();
    checkTokens();
}

void AttentionSnapshot::checkTokens() const {
    if (static_cast<int64_t>(m_tokens.size()) != m_numKeys)
        throw Error("attention snapshot: " + std::to_string(m_tokens.size()) + " tokens for "
            + std::to_string(m_numKeys) + " keys");
    if (static_cast<int64_t>(queryTokens().size()) != m_numQueries)
        throw Error("attention snapshot: " + std::to_string(queryTokens().size()) + " query tokens for "
            + std::to_string(m_numQueries) + " queries");
}

void AttentionSnapshot::checkIndex(int64_t layer, int64_t head) const {
    if (layer < 0 || layer >= numLayers() || head < 0 || head >= m_numHeads)
        throw Error("attention snapshot: no head " + std::to_string(layer) + "." + std::to_string(head) + " (model has "
            + std::to_string(numLayers()) + " layers x " + std::to_string(m_numHeads) + " heads)");
}

const float* AttentionSnapshot::head(int64_t layer, int64_t head) const {
    checkIndex(layer, head);
    if (!holdsMatrices())
        throw Error("attention snapshot: this input is too long to hold whole heads (" + std::to_string(m_numQueries)
            + " x " + std::to_string(m_numKeys) + "); it is read in tiles");
    return m_layers[static_cast<size_t>(layer)].data() + head * m_numQueries * m_numKeys;
}

const Tensor& AttentionSnapshot::layer(int64_t layer) const {
    (void)head(layer, 0); // range and holdsMatrices() checks
    return m_layers[static_cast<size_t>(layer)];
}

std::shared_ptr<const Tensor> AttentionSnapshot::rows(int64_t layer, int64_t head, int64_t q0, int64_t q1) const {
    checkIndex(layer, head);
    if (m_source) return m_source->rows(layer, head, q0, q1);
    if (q0 < 0 || q1 < q0 || q1 > m_numQueries)
        throw Error("attention snapshot: rows " + std::to_string(q0) + ":" + std::to_string(q1) + " outside "
            + std::to_string(m_numQueries) + " queries");
    auto out = std::make_shared<Tensor>(Shape { q1 - q0, m_numKeys });
    std::memcpy(out->data(), this->head(layer, head) + q0 * m_numKeys, sizeof(float) * out->numel());
    return out;
}

std::shared_ptr<const Overview> AttentionSnapshot::overview(int64_t layer, int64_t head, int64_t maxSide) const {
    checkIndex(layer, head);
    if (m_source) return m_source->overview(layer, head, maxSide);
    if (maxSide <= AttentionSource::kThumbnailSide && !m_thumbnails.empty())
        return m_thumbnails[static_cast<size_t>(layer * m_numHeads + head)];
    const OverviewKey key { layer, head, maxSide };
    {
        const std::lock_guard lock(m_overviewsLock);
        if (auto found = m_overviews.find(key)) return found;
    }
    // Built outside the lock: another thread's read of another head must not wait for this scan.
    auto built = buildOverview(layer, head, maxSide);
    const std::lock_guard lock(m_overviewsLock);
    m_overviews.insert(key, built, built->bytes());
    return built;
}

void AttentionSnapshot::prepareOverviews(int64_t layer, int64_t head) const
{
    overview(layer, head);
    overview(layer, head, AttentionSource::kThumbnailSide);
}

bool AttentionSnapshot::overviewReady(int64_t layer, int64_t head, int64_t maxSide) const
{
    checkIndex(layer, head);
    if (m_source) return m_source->cachedOverview(layer, head, maxSide) != nullptr;
    if (maxSide <= AttentionSource::kThumbnailSide && !m_thumbnails.empty()) return true;
    const std::lock_guard lock(m_overviewsLock);
    return m_overviews.find({ layer, head, maxSide }) != nullptr;
}

std::shared_ptr<const Overview> AttentionSnapshot::buildOverview(int64_t layer, int64_t head, int64_t maxSide) const {
    OverviewBuilder builder(m_numQueries, m_numKeys,
        overviewBlock(m_numQueries, m_numKeys, std::max(maxSide, AttentionSource::kThumbnailSide)));
    builder.add(0, m_numQueries, this->head(layer, head));
    return std::make_shared<const Overview>(builder.finish());
}

std::shared_ptr<const Tensor> AttentionSnapshot::cachedRows(int64_t layer, int64_t head, int64_t q0, int64_t q1) const {
    checkIndex(layer, head);
    return m_source ? m_source->cachedTile(layer, TileRange { head, q0, q1, 0, m_numKeys }) : rows(layer, head, q0, q1);
}

std::shared_ptr<const Overview> AttentionSnapshot::cachedOverview(int64_t layer, int64_t head, int64_t maxSide) const {
    checkIndex(layer, head);
    return m_source ? m_source->cachedOverview(layer, head, maxSide) : overview(layer, head, maxSide);
}

HeadStats AttentionSnapshot::stats(int64_t layer, int64_t head) const {
    checkIndex(layer, head);
    if (m_source) return isCross() ? crossStats(m_source->headStats(layer, head)) : m_source->headStats(layer, head);
    if (m_stats.empty()) throw Error("attention snapshot: head statistics were not computed for this snapshot");
    return m_stats[static_cast<size_t>(layer)][static_cast<size_t>(head)];
}

std::vector<int64_t> layerWindows(const ModelConfig& config) {
    if (!config.alternatingWindow) return {};
    std::vector<int64_t> windows;
    for (int64_t l = 0; l < config.numLayers; ++l)
        windows.push_back(config.windowOfLayer(l));
    return windows;
}

} // namespace attn::ui
