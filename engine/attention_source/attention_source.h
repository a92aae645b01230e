// SPDX-License-Identifier: MIT
#pragma once
// Attention derived on request (ARCHITECTURE.md decision 2): any tile of any head's probability matrix, computed from
// the stored queries and keys of a forward pass, plus level-of-detail overviews and head statistics streamed row
// block by row block. No view needs the layers x heads x q x k probabilities held at once.
#include "analysis/head_stats.h"
#include "attention/attention.h"
#include "attention_source/lru_cache.h"
#include "attention_source/overview.h"
#include "attention_source/query_key_store.h"
#include "backend/backend.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

namespace attn {

/// Per query row of one head: the largest masked, scaled score and the log-sum-exp over every key (-inf for a row that
/// sees no key), so that P[i, j] = exp(score[i, j] - logSumExp[i]) for any column range.
struct RowStats {
    std::vector<float> max;
    std::vector<float> logSumExp;
};

class AttentionSource {
public:
    /// Overviews of at most this many cells per side are kept for every head once computed (the all-heads grid).
    static constexpr int64_t kThumbnailSide = 64;
    /// The finest overview a heatmap asks for by default.
    static constexpr int64_t kOverviewSide = 512;

    /// `options` gives the scale and the structural mask (causal, window, padding, query offset) of every head;
    /// keepMask / bias tensors are not supported (throws Error). `backend` computes tiles and streamed rows (not
    /// owned, used from one thread at a time); null: the CPU attention core, which computes a tile's columns only once
    /// the head's row statistics are known. `cacheBytes` bounds the cached tiles and overviews.
    AttentionSource(std::shared_ptr<const QueryKeyStore> store, AttentionOptions options, Backend* backend = nullptr,
        size_t cacheBytes = size_t(128) << 20);

    int64_t numLayers() const { return m_store->numLayers(); }
    int64_t numHeads() const { return m_store->numHeads(); }
    int64_t numKvHeads() const { return m_store->numKvHeads(); }
    int64_t numQueries() const { return m_numQueries; }
    int64_t numKeys() const { return m_numKeys; }
    const MaskSpec& mask() const { return m_options.mask; }
    int64_t kvHeadOf(int64_t head) const { return head / (numHeads() / numKvHeads()); }
    /// Bytes one full [q, k] head would take (what a caller may materialize when it is small).
    size_t headBytes() const { return static_cast<size_t>(m_numQueries * m_numKeys) * sizeof(float); }

    /// P[q0:q1, k0:k1] of query head range.head in `layer`: [q1 - q0, k1 - k0], rows normalized over every key.
    /// Throws Error on a range outside the matrix.
    std::shared_ptr<const Tensor> tile(int64_t layer, const TileRange& range) const;
    /// Whole rows [q0, q1) of one head: tile(layer, {head, q0, q1, 0, numKeys()}).
    std::shared_ptr<const Tensor> rows(int64_t layer, int64_t head, int64_t q0, int64_t q1) const;
    std::shared_ptr<const RowStats> rowStats(int64_t layer, int64_t head) const;
    /// Block max / mean pyramid whose finest level has at most max(maxSide, kThumbnailSide) cells per side (pick a
    /// level with Overview::levelFor). Throws Error for an empty matrix.
    std::shared_ptr<const Overview> overview(int64_t layer, int64_t head, int64_t maxSide = kOverviewSide) const;
    HeadStats headStats(int64_t layer, int64_t head) const;
    /// Whether headStats() and the thumbnail overview of a head are known (else the first call streams the head).
    bool hasSummary(int64_t layer, int64_t head) const;
    /// Takes a head's statistics and thumbnail (a pyramid whose levels are at most kThumbnailSide per side) computed
    /// from the same probabilities elsewhere: by the forward pass that stored these queries and keys
    /// (SummaryCollector). Throws Error when the thumbnail's shape is not this matrix's.
    void adoptSummary(int64_t layer, int64_t head, const HeadStats& stats, Overview thumbnail) const;
    /// What tile() / overview() would return if it is at hand already, else null; never computes, and never waits
    /// for a computation on another thread (a view on the GUI thread asks the engine thread for what is missing).
    std::shared_ptr<const Tensor> cachedTile(int64_t layer, const TileRange& range) const;
    std::shared_ptr<const Overview> cachedOverview(int64_t layer, int64_t head, int64_t maxSide = kOverviewSide) const;

    /// Calls fn(q0, rows, probs) for consecutive row blocks [q0, q0 + rows) x [0, numKeys) of one head, in order,
    /// each block at most ~4 MiB.
    using RowBlockFn = std::function<void(int64_t q0, int64_t rows, const float* probs)>;
    void forEachRowBlock(int64_t layer, int64_t head, const RowBlockFn& fn) const;

private:
    using TileKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
    using HeadKey = std::pair<int64_t, int64_t>;
    using OverviewKey = std::tuple<int64_t, int64_t, int64_t>;

    void checkHead(int64_t layer, int64_t head) const;
    /// Masked scaled scores [q1 - q0, k1 - k0] of one head (-inf where masked), on the CPU.
    Tensor scores(int64_t layer, int64_t head, const TileRange& range) const;
    /// -inf over the keys [k0, k0 + cols) of one score row that query row `query` may not see.
    void maskScores(int64_t query, int64_t k0, float* row, int64_t cols) const;
    /// Softmax in place over the visible keys [a, b) of a row of raw scaled scores (padded keys become 0); returns the
    /// row's largest visible score and its log-sum-exp, both -inf when no key is visible.
    std::pair<float, float> softmaxVisible(float* row, int64_t a, int64_t b) const;
    /// Probabilities of whole rows [q0, q1) of one head. With `fill`, also their row max and log-sum-exp into it
    /// (on the CPU: a backend's tiles carry no scores).
    Tensor wholeRows(int64_t layer, int64_t head, int64_t q0, int64_t q1, RowStats* fill) const;
    /// Keys [first, second) of every row of a row-block buffer that may be non-zero.
    using KeySpan = std::pair<int64_t, int64_t>;
    /// wholeRows() on the CPU into `p` ([q1 - q0, numKeys] floats, zero outside `written`, which becomes the keys
    /// this block wrote): a buffer reused from block to block.
    void wholeRowsInto(
        int64_t layer, int64_t head, int64_t q0, int64_t q1, RowStats* fill, float* p, KeySpan& written) const;
    /// forEachRowBlock(), filling `fill` (sized numQueries) when not null.
    void streamRows(int64_t layer, int64_t head, RowStats* fill, const RowBlockFn& fn) const;
    Tensor computeTile(int64_t layer, const TileRange& range) const;
    /// One streamed pass over a head: fills its row stats, head stats and thumbnail, and builds an overview with
    /// the given finest block.
    std::shared_ptr<const Overview> summarize(int64_t layer, int64_t head, int64_t block) const;
    std::shared_ptr<const RowStats> knownRowStats(int64_t layer, int64_t head) const;
    std::shared_ptr<const Overview> knownThumbnail(int64_t layer, int64_t head) const;
    /// The finest block overview() builds for maxSide.
    int64_t overviewBlockFor(int64_t maxSide) const;

    std::shared_ptr<const QueryKeyStore> m_store;
    AttentionOptions m_options;
    Backend* m_backend;
    int64_t m_numQueries, m_numKeys;

    /// One computation at a time (the backend is used from one thread at a time; a second asker of the same tile
    /// waits for it instead of computing it twice). Recursive: headStats() computes through overview().
    mutable std::recursive_mutex m_compute;
    /// Guards the caches and maps below only, never held while computing: cached*() answer at once.
    mutable std::mutex m_mutex;
    mutable LruCache<TileKey, Tensor> m_tiles;
    mutable LruCache<OverviewKey, Overview> m_overviews;
    mutable std::map<HeadKey, std::shared_ptr<const RowStats>> m_rowStats;
    mutable std::map<HeadKey, HeadStats> m_headStats;
    mutable std::map<HeadKey, std::shared_ptr<const Overview>> m_thumbnails;
};

} // namespace attn
