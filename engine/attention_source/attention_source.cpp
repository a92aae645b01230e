// SPDX-License-Identifier: MIT
#include "attention_source/attention_source.h"

#include "attention/softmax_avx2.h"
#include "core/blas.h"
#include "core/error.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attn {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Streamed row blocks hold at most this many floats (4 MiB), whatever the input length.
constexpr int64_t kBlockFloats = int64_t(1) << 20;
// The attention core's kWindowSoftmaxMinKeys: blocks narrower than this round as softmaxRowsInPlace does.
constexpr int64_t kExactSoftmaxBelowKeys = 128;

std::string rangeText(const TileRange& r)
{
    return "rows [" + std::to_string(r.q0) + ", " + std::to_string(r.q1) + ") x keys [" + std::to_string(r.k0) + ", "
        + std::to_string(r.k1) + ")";
}

std::shared_ptr<RowStats> emptyRowStats(int64_t rows)
{
    auto stats = std::make_shared<RowStats>();
    stats->max.resize(static_cast<size_t>(rows));
    stats->logSumExp.resize(static_cast<size_t>(rows));
    return stats;
}

} // namespace

AttentionSource::AttentionSource(
    std::shared_ptr<const QueryKeyStore> store, AttentionOptions options, Backend* backend, size_t cacheBytes)
    : m_store(std::move(store))
    , m_options(std::move(options))
    , m_backend(backend)
    , m_numQueries(m_store ? m_store->numQueries() : 0)
    , m_numKeys(m_store ? m_store->numKeys() : 0)
    , m_tiles(cacheBytes / 2)
    , m_overviews(cacheBytes / 2)
{
    if (!m_store) throw Error("attention source: no stored queries and keys");
    if (m_options.mask.keepMask || m_options.mask.bias)
        throw Error("attention source: keep-mask and bias tensors are not supported (only causal, window and "
                    "padding masks)");
    if (!m_options.mask.keyKeep.empty() && static_cast<int64_t>(m_options.mask.keyKeep.size()) != m_numKeys)
        throw Error("attention source: the padding mask has " + std::to_string(m_options.mask.keyKeep.size())
            + " entries for " + std::to_string(m_numKeys) + " keys");
    if (m_options.scale == 0.0f) m_options.scale = 1.0f / std::sqrt(static_cast<float>(m_store->queries(0, 0).dim(2)));
}

void AttentionSource::checkHead(int64_t layer, int64_t head) const
{
    if (layer < 0 || layer >= numLayers() || head < 0 || head >= numHeads())
        throw Error("attention source: layer " + std::to_string(layer) + " head " + std::to_string(head)
            + " is outside " + std::to_string(numLayers()) + " layers x " + std::to_string(numHeads()) + " heads");
}

Tensor AttentionSource::scores(int64_t layer, int64_t head, const TileRange& r) const
{
    const Tensor& q = m_store->queries(layer, head);
    const Tensor& k = m_store->keys(layer, kvHeadOf(head));
    const int64_t d = q.dim(2), rows = r.q1 - r.q0, cols = r.k1 - r.k0;
    Tensor s({ rows, cols });
    if (s.empty()) return s;
    gemm(rows, cols, d, m_options.scale, q.data() + r.q0 * d, k.data() + r.k0 * d, true, s.data());
    for (int64_t i = 0; i < rows; ++i)
        maskScores(r.q0 + i, r.k0, s.data() + i * cols, cols);
    return s;
}

void AttentionSource::maskScores(int64_t query, int64_t k0, float* row, int64_t cols) const
{
    // One visible range per row (keyVisible per entry costs more than the product at a few thousand keys).
    const auto [lo, hi] = visibleRange(m_options.mask, query, m_numKeys);
    const int64_t a = std::clamp(lo - k0, int64_t(0), cols), b = std::clamp(hi - k0, a, cols);
    std::fill(row, row + a, kNegInf);
    std::fill(row + b, row + cols, kNegInf);
    if (m_options.mask.keyKeep.empty()) return;
    for (int64_t j = a; j < b; ++j)
        if (!m_options.mask.keyKeep[static_cast<size_t>(k0 + j)]) row[j] = kNegInf;
}

Tensor AttentionSource::wholeRows(int64_t layer, int64_t head, int64_t q0, int64_t q1, RowStats* fill) const
{
    if (m_backend && !fill) {
        const Tensor& q = m_store->queries(layer, head);
        const Tensor& k = m_store->keys(layer, kvHeadOf(head));
        // A KV cache may have grown past this source's length; causal rows never see those later keys.
        if (k.dim(1) != m_numKeys && !m_options.mask.causal)
            throw Error("attention source: the stored keys changed length under a non-causal mask");
        Tensor p = m_backend->probabilityTile(q, k, TileRange { 0, q0, q1, 0, k.dim(1) }, m_options);
        if (k.dim(1) == m_numKeys) return p;
        Tensor cut({ q1 - q0, m_numKeys });
        for (int64_t i = 0; i < q1 - q0; ++i)
            std::copy_n(p.data() + i * k.dim(1), m_numKeys, cut.data() + i * m_numKeys);
        return cut;
    }
    Tensor p({ q1 - q0, m_numKeys });
    KeySpan written { 0, 0 };
    wholeRowsInto(layer, head, q0, q1, fill, p.data(), written);
    return p;
}

void AttentionSource::wholeRowsInto(
    int64_t layer, int64_t head, int64_t q0, int64_t q1, RowStats* fill, float* p, KeySpan& written) const
{
    // The product covers only the keys some row of the block sees (a causal block stops at its last row), written
    // into rows zeroed in place; each row's softmax also gives its max and log-sum-exp.
    const int64_t rows = q1 - q0;
    int64_t lo = m_numKeys, hi = 0;
    for (int64_t i = 0; i < rows; ++i) {
        const auto [a, b] = visibleRange(m_options.mask, q0 + i, m_numKeys);
        if (a < b) {
            lo = std::min(lo, a);
            hi = std::max(hi, b);
        }
    }
    if (lo >= hi) lo = hi = 0; // no row sees a key: every row stays zero
    // Only the keys an earlier block wrote into a reused buffer are not zero (its pages are mapped already).
    for (int64_t i = 0; i < rows; ++i)
        std::fill(p + i * m_numKeys + written.first, p + i * m_numKeys + written.second, 0.0f);
    written = { lo, hi };
    const int64_t width = hi - lo;
    if (width > 0) {
        const Tensor& q = m_store->queries(layer, head);
        const Tensor& k = m_store->keys(layer, kvHeadOf(head));
        const int64_t d = q.dim(2);
        gemmStrided(
            rows, width, d, m_options.scale, q.data() + q0 * d, d, k.data() + lo * d, d, true, p + lo, m_numKeys, true);
    }
    for (int64_t i = 0; i < rows; ++i) {
        float* row = p + i * m_numKeys;
        auto [a, b] = visibleRange(m_options.mask, q0 + i, m_numKeys);
        if (!m_options.mask.keyKeep.empty() || hi - lo < kExactSoftmaxBelowKeys) {
            // As the attention core does for a narrow block or padded keys: the softmax over all its keys, masked.
            maskScores(q0 + i, lo, row + lo, hi - lo);
            a = lo;
            b = hi;
        } else { // keys outside this row's window were multiplied along with the block's other rows
            std::fill(row + lo, row + std::clamp(a, lo, hi), 0.0f);
            std::fill(row + std::clamp(b, lo, hi), row + hi, 0.0f);
        }
        const auto [top, lse] = softmaxVisible(row, a, b);
        if (fill) {
            fill->max[static_cast<size_t>(q0 + i)] = top;
            fill->logSumExp[static_cast<size_t>(q0 + i)] = lse;
        }
    }
}

std::pair<float, float> AttentionSource::softmaxVisible(float* row, int64_t a, int64_t b) const
{
    // Rounded as the attention core rounds such a row (attention.cpp, kWindowSoftmaxMinKeys): a short span, or one
    // with padded keys (-inf here), takes softmaxRowsInPlace; a longer one the eight-lane softmax. Either way the
    // largest entry becomes exp(0) times the reciprocal of the sum, which gives the log-sum-exp.
    Eigen::Map<Eigen::ArrayXf> r(row + a, std::max<int64_t>(b - a, 0));
    // The vectorized max, then its first position: maxCoeff(&index) is a scalar loop, a quarter of a head switch's
    // pass at 4,096 tokens. (Not found only for a NaN score: then the row's first entry, as a row of NaNs anyway.)
    const float top = r.size() > 0 ? r.maxCoeff() : kNegInf;
    const int64_t found = std::find(row + a, row + b, top) - row;
    const int64_t at = found < b ? found - a : 0;
    if (top == kNegInf) {
        r.setZero();
        return { kNegInf, kNegInf };
    }
    if (!m_options.mask.keyKeep.empty() || b - a < kExactSoftmaxBelowKeys)
        softmaxRowsInPlace(row + a, 1, b - a);
    else if (!softmaxDenseAvx2(row + a, b - a)) {
        r = (r - top).exp();
        r *= 1.0f / r.sum();
    }
    return { top, top - std::log(row[a + at]) };
}

Tensor AttentionSource::computeTile(int64_t layer, const TileRange& r) const
{
    const int64_t rows = r.q1 - r.q0, cols = r.k1 - r.k0;
    const auto known = knownRowStats(layer, r.head);
    if (m_backend && m_store->keys(layer, kvHeadOf(r.head)).dim(1) == m_numKeys)
        return m_backend->probabilityTile(m_store->queries(layer, r.head), m_store->keys(layer, kvHeadOf(r.head)),
            TileRange { 0, r.q0, r.q1, r.k0, r.k1 }, m_options);
    if (m_backend || !known || cols == m_numKeys) {
        // Whole rows are needed to normalize anyway.
        const Tensor all = wholeRows(layer, r.head, r.q0, r.q1, nullptr);
        if (cols == m_numKeys) return all;
        Tensor tile({ rows, cols });
        for (int64_t i = 0; i < rows; ++i)
            std::copy_n(all.data() + i * m_numKeys + r.k0, cols, tile.data() + i * cols);
        return tile;
    }
    // The rows' log-sum-exp is known: only the tile's columns are computed.
    Tensor tile = scores(layer, r.head, r);
    const std::vector<float>& lse = known->logSumExp;
    for (int64_t i = 0; i < rows; ++i) {
        float* row = tile.data() + i * cols;
        const float norm = lse[static_cast<size_t>(r.q0 + i)];
        for (int64_t j = 0; j < cols; ++j)
            row[j] = row[j] == kNegInf ? 0.0f : std::exp(row[j] - norm);
    }
    return tile;
}

std::shared_ptr<const Tensor> AttentionSource::tile(int64_t layer, const TileRange& r) const
{
    checkHead(layer, r.head);
    if (r.q0 < 0 || r.q1 < r.q0 || r.q1 > m_numQueries || r.k0 < 0 || r.k1 < r.k0 || r.k1 > m_numKeys)
        throw Error("attention source: " + rangeText(r) + " is outside the " + std::to_string(m_numQueries) + " x "
            + std::to_string(m_numKeys) + " matrix");
    if (auto hit = cachedTile(layer, r)) return hit;
    const std::lock_guard compute(m_compute);
    if (auto hit = cachedTile(layer, r)) return hit; // computed while this thread waited
    auto value = std::make_shared<const Tensor>(computeTile(layer, r));
    const std::lock_guard lock(m_mutex);
    m_tiles.insert(TileKey { layer, r.head, r.q0, r.q1, r.k0, r.k1 }, value,
        static_cast<size_t>(value->numel()) * sizeof(float));
    return value;
}

std::shared_ptr<const Tensor> AttentionSource::cachedTile(int64_t layer, const TileRange& r) const
{
    const std::lock_guard lock(m_mutex);
    return m_tiles.find(TileKey { layer, r.head, r.q0, r.q1, r.k0, r.k1 });
}

std::shared_ptr<const Tensor> AttentionSource::rows(int64_t layer, int64_t head, int64_t q0, int64_t q1) const
{
    return tile(layer, TileRange { head, q0, q1, 0, m_numKeys });
}

void AttentionSource::forEachRowBlock(int64_t layer, int64_t head, const RowBlockFn& fn) const
{
    checkHead(layer, head);
    streamRows(layer, head, nullptr, fn);
}

void AttentionSource::streamRows(int64_t layer, int64_t head, RowStats* fill, const RowBlockFn& fn) const
{
    if (m_numQueries == 0) return;
    const int64_t blockRows = std::clamp<int64_t>(kBlockFloats / std::max<int64_t>(m_numKeys, 1), 1, m_numQueries);
    if (m_backend && !fill) {
        for (int64_t q0 = 0; q0 < m_numQueries; q0 += blockRows) {
            const int64_t q1 = std::min(m_numQueries, q0 + blockRows);
            const Tensor block = wholeRows(layer, head, q0, q1, nullptr);
            fn(q0, q1 - q0, block.data());
        }
        return;
    }
    // On the CPU one buffer serves every block: a fresh 4 MiB block per row block cost a page fault per page and a
    // zeroing pass over whole rows.
    Tensor buffer({ blockRows, m_numKeys });
    KeySpan written { 0, 0 };
    for (int64_t q0 = 0; q0 < m_numQueries; q0 += blockRows) {
        const int64_t q1 = std::min(m_numQueries, q0 + blockRows);
        wholeRowsInto(layer, head, q0, q1, fill, buffer.data(), written);
        fn(q0, q1 - q0, buffer.data());
    }
}

std::shared_ptr<const Overview> AttentionSource::summarize(int64_t layer, int64_t head, int64_t block) const
{
    const HeadKey key { layer, head };
    // Row statistics only serve the CPU's column-only tiles.
    const auto stats = !m_backend && !knownRowStats(layer, head) ? emptyRowStats(m_numQueries) : nullptr;
    // A head the forward summarized (SummaryCollector) keeps its statistics: a head switch only needs the overview.
    const bool summarized = hasSummary(layer, head);
    HeadStatsAccumulator headStats;
    OverviewBuilder builder(m_numQueries, m_numKeys, block, m_options.mask); // its rows are 0 outside the mask
    streamRows(layer, head, stats.get(), [&](int64_t q0, int64_t rows, const float* p) {
        if (!summarized) {
            MaskSpec rowMask = m_options.mask;
            rowMask.queryOffset += q0;
            headStats.add(p, rows, m_numKeys, rowMask);
        }
        builder.add(q0, rows, p);
    });
    auto overview = std::make_shared<const Overview>(builder.finish());
    Overview thumb { m_numQueries, m_numKeys, {} };
    for (const OverviewLevel& level : overview->levels)
        if (level.rows <= kThumbnailSide && level.cols <= kThumbnailSide) thumb.levels.push_back(level);
    const std::lock_guard lock(m_mutex);
    if (stats) m_rowStats[key] = stats;
    if (!summarized) m_headStats[key] = headStats.result();
    m_thumbnails.try_emplace(key, std::make_shared<const Overview>(std::move(thumb)));
    return overview;
}

void AttentionSource::adoptSummary(int64_t layer, int64_t head, const HeadStats& stats, Overview thumbnail) const
{
    checkHead(layer, head);
    if (thumbnail.numQueries != m_numQueries || thumbnail.numKeys != m_numKeys || thumbnail.levels.empty()
        || thumbnail.levels.front().rows > kThumbnailSide || thumbnail.levels.front().cols > kThumbnailSide)
        throw Error("attention source: a thumbnail of another shape was offered for layer " + std::to_string(layer)
            + " head " + std::to_string(head));
    const std::lock_guard lock(m_mutex);
    m_headStats[{ layer, head }] = stats;
    m_thumbnails[{ layer, head }] = std::make_shared<const Overview>(std::move(thumbnail));
}

std::shared_ptr<const RowStats> AttentionSource::knownRowStats(int64_t layer, int64_t head) const
{
    const std::lock_guard lock(m_mutex);
    const auto it = m_rowStats.find({ layer, head });
    return it == m_rowStats.end() ? nullptr : it->second;
}

std::shared_ptr<const Overview> AttentionSource::knownThumbnail(int64_t layer, int64_t head) const
{
    const std::lock_guard lock(m_mutex);
    const auto it = m_thumbnails.find({ layer, head });
    return it == m_thumbnails.end() ? nullptr : it->second;
}

int64_t AttentionSource::overviewBlockFor(int64_t maxSide) const
{
    return overviewBlock(m_numQueries, m_numKeys, std::max<int64_t>(maxSide, kThumbnailSide));
}

std::shared_ptr<const Overview> AttentionSource::overview(int64_t layer, int64_t head, int64_t maxSide) const
{
    checkHead(layer, head);
    if (m_numQueries == 0 || m_numKeys == 0) throw Error("attention source: an empty matrix has no overview");
    if (auto hit = cachedOverview(layer, head, maxSide)) return hit;
    const std::lock_guard compute(m_compute);
    if (auto hit = cachedOverview(layer, head, maxSide)) return hit; // computed while this thread waited
    const int64_t block = overviewBlockFor(maxSide);
    auto value = summarize(layer, head, block);
    if (maxSide <= kThumbnailSide) return knownThumbnail(layer, head);
    const std::lock_guard lock(m_mutex);
    m_overviews.insert(OverviewKey { layer, head, block }, value, value->bytes());
    return value;
}

std::shared_ptr<const Overview> AttentionSource::cachedOverview(int64_t layer, int64_t head, int64_t maxSide) const
{
    if (maxSide <= kThumbnailSide) return knownThumbnail(layer, head);
    const std::lock_guard lock(m_mutex);
    return m_overviews.find(OverviewKey { layer, head, overviewBlockFor(maxSide) });
}

std::shared_ptr<const RowStats> AttentionSource::rowStats(int64_t layer, int64_t head) const
{
    checkHead(layer, head);
    if (auto known = knownRowStats(layer, head)) return known;
    const std::lock_guard compute(m_compute);
    if (auto known = knownRowStats(layer, head)) return known;
    const auto stats = emptyRowStats(m_numQueries);
    streamRows(layer, head, stats.get(), [](int64_t, int64_t, const float*) {});
    const std::lock_guard lock(m_mutex);
    return m_rowStats[{ layer, head }] = stats;
}

bool AttentionSource::hasSummary(int64_t layer, int64_t head) const
{
    const std::lock_guard lock(m_mutex);
    return m_headStats.count({ layer, head }) != 0 && m_thumbnails.count({ layer, head }) != 0;
}

HeadStats AttentionSource::headStats(int64_t layer, int64_t head) const
{
    (void)overview(layer, head, kThumbnailSide); // one streamed pass fills the head's statistics
    const std::lock_guard lock(m_mutex);
    return m_headStats.at({ layer, head });
}

} // namespace attn
