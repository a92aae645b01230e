// SPDX-License-Identifier: MIT
#pragma once
// The immutable value every attention view reads: the views never touch the engine.
#include "analysis/head_stats.h"
#include "attention/attention.h"
#include "attention_source/attention_source.h"
#include "attention_source/lru_cache.h"
#include "core/tensor.h"
#include "model/model_config.h"
#include "model/token_chip.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace attn::ui {

/// Self-attention probabilities of one forward pass: per layer [heads, q, k], the structural mask and per-head stats.
/// Built once on the engine thread, then shared read-only with the GUI thread. Short inputs hold the matrices; long
/// ones hold an AttentionSource instead and every read (rows, overviews, statistics) is derived on request.
class AttentionSnapshot {
public:
    /// Whether the constructor computes every head's statistics (O(layers x heads x q x k) logarithms). Views that
    /// never show them (the decode tab, rebuilding snapshots many times a second) skip that cost.
    enum class Stats { Compute, Skip };

    /// Takes `layers` ([heads, q, k] each, all the same shape) and computes the head statistics. `tokens` label the
    /// keys; `queryTokens` label the queries when they differ (cross-attention: target queries, source keys), else
    /// the keys label both. `mask` must not point at tensors (keepMask/bias are ignored). Throws Error on
    /// inconsistent shapes. `layerWindows` (one per layer, see layerWindows()) replaces mask.slidingWindow layer by
    /// layer where the window differs between layers; empty: `mask` holds for every layer.
    AttentionSnapshot(std::vector<TokenChip> tokens, std::vector<Tensor> layers, int64_t numKvHeads, MaskSpec mask,
        std::vector<TokenChip> queryTokens = {}, Stats stats = Stats::Compute, std::vector<int64_t> layerWindows = {});
    /// A snapshot that holds no matrix: `source` (not shared with a session that still runs) answers every read.
    /// Throws Error when the tokens do not match the source's shape.
    AttentionSnapshot(std::vector<TokenChip> tokens, std::shared_ptr<const AttentionSource> source,
        std::vector<TokenChip> queryTokens = {});

    /// Whether whole heads are held (head() and layer() work); false for a source-backed snapshot.
    bool holdsMatrices() const { return !m_layers.empty(); }
    /// The source of a source-backed snapshot; null when the matrices are held.
    const std::shared_ptr<const AttentionSource>& source() const { return m_source; }

    /// The key tokens (for self-attention also the queries).
    const std::vector<TokenChip>& tokens() const { return m_tokens; }
    const std::vector<TokenChip>& queryTokens() const { return m_queryTokens.empty() ? m_tokens : m_queryTokens; }
    /// True when queries and keys are different sequences (cross-attention: target queries, source keys).
    bool isCross() const { return !m_queryTokens.empty(); }
    int64_t numLayers() const { return m_numLayers; }
    int64_t numHeads() const { return m_numHeads; }
    int64_t numKvHeads() const { return m_numKvHeads; }
    int64_t numQueries() const { return m_numQueries; }
    int64_t numKeys() const { return m_numKeys; }
    /// The structural mask of one layer (gemma2 alternates a sliding window with global layers).
    const MaskSpec& mask(int64_t layer) const
    {
        return m_layerMasks.empty() ? m_mask : m_layerMasks.at(static_cast<size_t>(layer));
    }

    /// Row-major [q, k] probabilities of one head; throws Error when out of range or when !holdsMatrices().
    const float* head(int64_t layer, int64_t head) const;
    const Tensor& layer(int64_t layer) const;
    /// Whole rows [q0, q1) of one head, [q1 - q0, numKeys()], in either kind of snapshot.
    std::shared_ptr<const Tensor> rows(int64_t layer, int64_t head, int64_t q0, int64_t q1) const;
    /// Block max / mean pyramid of one head (AttentionSource::overview), in either kind of snapshot. Held matrices
    /// keep the last few they built (kHeldOverviewBytes): a view rebuilt on the GUI thread (a zoom, a redraw) reads
    /// them again instead of scanning the head, and a result built on the engine thread can build its views'
    /// overviews there first.
    std::shared_ptr<const Overview> overview(
        int64_t layer, int64_t head, int64_t maxSide = AttentionSource::kOverviewSide) const;
    /// Builds the overviews a heatmap of one head reads (the whole head's and its minimap's): called where a result
    /// is built on the engine thread, so that the GUI thread's first drawing of it finds them made.
    void prepareOverviews(int64_t layer, int64_t head) const;
    /// Whether overview() answers from memory (a thumbnail, a kept overview, the source's cache) instead of
    /// scanning the head.
    bool overviewReady(int64_t layer, int64_t head, int64_t maxSide = AttentionSource::kOverviewSide) const;
    /// rows() / overview() when they can answer at once: always for held matrices; for a source-backed snapshot only
    /// what its source has cached (else null). Views on the GUI thread read these and have the engine thread
    /// compute what is missing, so that they never wait for a tile or for the statistics being streamed.
    std::shared_ptr<const Tensor> cachedRows(int64_t layer, int64_t head, int64_t q0, int64_t q1) const;
    std::shared_ptr<const Overview> cachedOverview(
        int64_t layer, int64_t head, int64_t maxSide = AttentionSource::kOverviewSide) const;
    /// True where the structural mask (causal, window, padding) of `layer` lets query q see key k.
    bool visible(int64_t layer, int64_t q, int64_t k) const { return keyVisible(mask(layer), q, k); }
    /// The KV head that query head `head` reads (GQA/MQA groups).
    int64_t kvHeadOf(int64_t head) const { return head / (m_numHeads / m_numKvHeads); }
    bool hasStats() const { return !m_stats.empty() || m_source; }
    /// Whether stats() and the thumbnail overview of a head are at hand: a derived snapshot's heads are summarized
    /// on the engine thread after the run, and the views show the others as pending instead of computing them.
    bool statsReady(int64_t layer, int64_t head) const { return !m_source || m_source->hasSummary(layer, head); }
    /// For cross-attention the positional statistics (mean distance, previous token, diagonal) are NaN: undefined.
    /// A source-backed snapshot streams a head's statistics on first use. Throws Error when out of range or when the
    /// snapshot was built with Stats::Skip.
    HeadStats stats(int64_t layer, int64_t head) const;

private:
    /// The most a held snapshot keeps of overviews it built (about ten 512-token heads at full resolution).
    static constexpr size_t kHeldOverviewBytes = size_t { 32 } << 20;
    using OverviewKey = std::tuple<int64_t, int64_t, int64_t>; ///< layer, head, maxSide

    void checkIndex(int64_t layer, int64_t head) const;
    std::shared_ptr<const Overview> buildOverview(int64_t layer, int64_t head, int64_t maxSide) const;
    void checkTokens() const;

    std::vector<TokenChip> m_tokens;
    std::vector<TokenChip> m_queryTokens; ///< empty: the keys' tokens
    std::vector<Tensor> m_layers;
    std::shared_ptr<const AttentionSource> m_source;
    int64_t m_numLayers = 0;
    int64_t m_numHeads = 0;
    int64_t m_numKvHeads = 0;
    int64_t m_numQueries = 0;
    int64_t m_numKeys = 0;
    MaskSpec m_mask;
    std::vector<MaskSpec> m_layerMasks; ///< empty: m_mask for every layer
    std::vector<std::vector<HeadStats>> m_stats;
    std::vector<std::shared_ptr<const Overview>> m_thumbnails; ///< [layer * heads + head], with the statistics
    mutable std::mutex m_overviewsLock; ///< the snapshot is read from the GUI and engine threads at once
    mutable LruCache<OverviewKey, Overview> m_overviews { kHeldOverviewBytes };
};

using SnapshotPtr = std::shared_ptr<const AttentionSnapshot>;

/// The sliding window of every decoder layer where it differs between layers (gemma2's alternating local and global
/// layers), for AttentionSnapshot's `layerWindows`; empty when one window (or none) holds for all.
std::vector<int64_t> layerWindows(const ModelConfig& config);

} // namespace attn::ui
