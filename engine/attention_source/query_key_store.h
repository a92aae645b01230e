// SPDX-License-Identifier: MIT
#pragma once
// Where an attention source reads the stored queries (after RoPE) and keys of one forward pass, head by head.
#include "core/tensor.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attn {

class KvCache;

/// Per layer and head: queries [1, numQueries, d] of every query head and keys [1, numKeys, d] of every KV head
/// (query head h reads KV head h / (numHeads / numKvHeads)). Only the first numQueries / numKeys rows are read.
class QueryKeyStore {
public:
    virtual ~QueryKeyStore() = default;
    virtual int64_t numLayers() const = 0;
    virtual int64_t numHeads() const = 0;
    virtual int64_t numKvHeads() const = 0;
    virtual int64_t numQueries() const = 0;
    virtual int64_t numKeys() const = 0;
    /// Throw Error when out of range (or when the store no longer holds what it did).
    virtual const Tensor& queries(int64_t layer, int64_t head) const = 0;
    virtual const Tensor& keys(int64_t layer, int64_t kvHead) const = 0;
};

/// A store that owns its tensors: encoders, cross-attention, tests. Built from per-layer [heads, t, d] tensors.
class OwnedQueryKeys : public QueryKeyStore {
public:
    /// queries[l] [hq, nq, d], keys[l] [hkv, nk, d], the same shapes on every layer, hq % hkv == 0. Throws Error
    /// otherwise.
    OwnedQueryKeys(const std::vector<Tensor>& queries, const std::vector<Tensor>& keys);
    /// The first `length` queries and keys of every head of `store`, copied once: a store that no later write to the
    /// original (a decoder appending or rewinding its cache) can change, so it may be read on another thread. Throws
    /// Error when `store` holds fewer positions.
    static std::shared_ptr<const OwnedQueryKeys> copyOf(const QueryKeyStore& store, int64_t length);

    int64_t numLayers() const override { return m_layers; }
    int64_t numHeads() const override { return m_heads; }
    int64_t numKvHeads() const override { return m_kvHeads; }
    int64_t numQueries() const override { return m_numQueries; }
    int64_t numKeys() const override { return m_numKeys; }
    const Tensor& queries(int64_t layer, int64_t head) const override;
    const Tensor& keys(int64_t layer, int64_t kvHead) const override;

private:
    OwnedQueryKeys() = default;
    int64_t m_layers = 0, m_heads = 0, m_kvHeads = 0, m_numQueries = 0, m_numKeys = 0;
    std::vector<Tensor> m_q, m_k; ///< [layer * heads + head], each [1, t, d]
};

/// A decoder's KV cache read in place (no copy) at the length it had when the store was made. Reading after the
/// cache is gone, or after a rewind cut below that length, throws Error instead of showing other positions.
/// Appending more positions is harmless. Not thread-safe against the session writing the cache: read it from the
/// thread that drives the session, or hand the store a session nobody drives any more (`owner` keeps it alive).
class CachedQueryKeys : public QueryKeyStore {
public:
    explicit CachedQueryKeys(const KvCache& cache, std::shared_ptr<const void> owner = {});

    int64_t numLayers() const override;
    int64_t numHeads() const override;
    int64_t numKvHeads() const override;
    int64_t numQueries() const override { return m_length; }
    int64_t numKeys() const override { return m_length; }
    const Tensor& queries(int64_t layer, int64_t head) const override;
    const Tensor& keys(int64_t layer, int64_t kvHead) const override;

private:
    const KvCache& checked() const;
    const KvCache& m_cache;
    std::shared_ptr<const void> m_owner;
    std::weak_ptr<const void> m_alive;
    int64_t m_length;
    uint64_t m_truncations;
};

} // namespace attn
