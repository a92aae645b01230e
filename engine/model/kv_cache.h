// SPDX-License-Identifier: MIT
#pragma once
#include "core/lifetime.h"
#include "core/tensor.h"

#include <cstdint>
#include <vector>

namespace attn {

/// The per-layer state a decoder keeps between steps: keys and values per KV head and the queries (after RoPE) per
/// query head, each a [1, T, dim] tensor that grows by appending rows. Attention probabilities are derived from these
/// on request. Capacity reserved with reserve() keeps steps free of reallocation.
class KvCache {
public:
    KvCache(int64_t layers, int64_t queryHeads, int64_t kvHeads, int64_t headDim, int64_t valueDim);

    int64_t numLayers() const { return m_layers; }
    int64_t numQueryHeads() const { return m_queryHeads; }
    int64_t numKvHeads() const { return m_kvHeads; }
    /// Positions every layer holds.
    int64_t length() const { return m_length; }

    void reserve(int64_t positions);
    /// Keeps the first `positions` positions (rewind). Throws Error if positions > length().
    void truncate(int64_t positions);

    /// Appends n new rows of one layer: q [hq, n, d], k [hkv, n, d], v [hkv, n, dv]. A forward pass appends every
    /// layer, then commit(n) makes them part of length().
    void append(int64_t layer, const Tensor& q, const Tensor& k, const Tensor& v);
    /// append() of rows [first, first + n) of `other`'s layer (a cache of the same shape): a pass that reuses the
    /// layers below the first one it changes from an earlier pass of the same tokens. Throws Error when they differ.
    void appendFrom(const KvCache& other, int64_t layer, int64_t first, int64_t n);
    /// Throws Error unless q, k and v of these shapes fit append().
    void checkRows(const Shape& q, const Shape& k, const Shape& v) const;
    void commit(int64_t n);
    /// Drops rows appended since the last commit (a failed or cancelled forward pass).
    void rollback() { truncate(m_length); }

    const Tensor& queries(int64_t layer, int64_t head) const { return m_q[index(layer, head, m_queryHeads)]; }
    const Tensor& keys(int64_t layer, int64_t kvHead) const { return m_k[index(layer, kvHead, m_kvHeads)]; }
    const Tensor& values(int64_t layer, int64_t kvHead) const { return m_v[index(layer, kvHead, m_kvHeads)]; }

    /// Watched by device mirrors of the cache, which go with it.
    const LifetimeToken& lifetime() const { return m_lifetime; }
    /// How many times committed positions were dropped (truncate below length()).
    uint64_t truncations() const { return m_truncations.size(); }
    /// The shortest length the cache was cut to by the truncations after the first `seen` ones (length() if none):
    /// a mirror that saw `seen` truncations still shares rows [0, that length) with the cache. Rows past length() may
    /// change without notice.
    int64_t shortestSince(uint64_t seen) const;

private:
    size_t index(int64_t layer, int64_t head, int64_t heads) const;
    int64_t m_layers, m_queryHeads, m_kvHeads, m_headDim, m_valueDim;
    int64_t m_length = 0;
    std::vector<Tensor> m_q, m_k, m_v;
    LifetimeToken m_lifetime;
    std::vector<int64_t> m_truncations; ///< the length each truncation below length() cut to

};

} // namespace attn
