// SPDX-License-Identifier: MIT
#pragma once
// The immutable value every attention view reads: the views never touch the engine.
#include "analysis/head_stats.h"
#include "attention/attention.h"
#include "core/tensor.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn::ui {

/// One input token as shown in the token chips and on the heatmap axes.
struct TokenChip {
    std::string text;
    int64_t id = -1;
    bool special = false;
};

/// Self-attention probabilities of one forward pass: per layer [heads, q, k], the structural mask and per-head stats.
/// Built once on the engine thread, then shared read-only with the GUI thread.
class AttentionSnapshot {
public:
    /// Whether the constructor computes every head's statistics (O(layers x heads x q x k) logarithms). Views that
    /// never show them (the decode tab, rebuilding snapshots many times a second) skip that cost.
    enum class Stats { Compute, Skip };

    /// Takes `layers` ([heads, q, k] each, all the same shape) and computes the head statistics. `tokens` label the
    /// keys; `queryTokens` label the queries when they differ (cross-attention: target queries, source keys), else
    /// the keys label both. `mask` must not point at tensors (keepMask/bias are ignored). Throws Error on
    /// inconsistent shapes.
    AttentionSnapshot(std::vector<TokenChip> tokens, std::vector<Tensor> layers, int64_t numKvHeads, MaskSpec mask,
        std::vector<TokenChip> queryTokens = {}, Stats stats = Stats::Compute);

    /// The key tokens (for self-attention also the queries).
    const std::vector<TokenChip>& tokens() const { return m_tokens; }
    const std::vector<TokenChip>& queryTokens() const { return m_queryTokens.empty() ? m_tokens : m_queryTokens; }
    /// True when queries and keys are different sequences (cross-attention: target queries, source keys).
    bool isCross() const { return !m_queryTokens.empty(); }
    int64_t numLayers() const { return static_cast<int64_t>(m_layers.size()); }
    int64_t numHeads() const { return m_numHeads; }
    int64_t numKvHeads() const { return m_numKvHeads; }
    int64_t numQueries() const { return m_numQueries; }
    int64_t numKeys() const { return m_numKeys; }
    const MaskSpec& mask() const { return m_mask; }

    /// Row-major [q, k] probabilities of one head; throws Error when out of range.
    const float* head(int64_t layer, int64_t head) const;
    const Tensor& layer(int64_t layer) const;
    /// True where the structural mask (causal, window, padding) lets query q see key k.
    bool visible(int64_t q, int64_t k) const { return keyVisible(m_mask, q, k); }
    /// The KV head that query head `head` reads (GQA/MQA groups).
    int64_t kvHeadOf(int64_t head) const { return head / (m_numHeads / m_numKvHeads); }
    bool hasStats() const { return !m_stats.empty(); }
    /// For cross-attention the positional statistics (mean distance, previous token, diagonal) are NaN: undefined.
    /// Throws Error when out of range or when the snapshot was built with Stats::Skip.
    const HeadStats& stats(int64_t layer, int64_t head) const;

private:
    void checkIndex(int64_t layer, int64_t head) const;

    std::vector<TokenChip> m_tokens;
    std::vector<TokenChip> m_queryTokens; ///< empty: the keys' tokens
    std::vector<Tensor> m_layers;
    int64_t m_numHeads = 0;
    int64_t m_numKvHeads = 0;
    int64_t m_numQueries = 0;
    int64_t m_numKeys = 0;
    MaskSpec m_mask;
    std::vector<std::vector<HeadStats>> m_stats;
};

using SnapshotPtr = std::shared_ptr<const AttentionSnapshot>;

} // namespace attn::ui
