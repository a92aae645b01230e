// SPDX-License-Identifier: MIT
#include "attention_source/query_key_store.h"

#include "core/error.h"
#include "model/kv_cache.h"

#include <string>

namespace attn {
namespace {

void checkIndex(int64_t layer, int64_t head, int64_t layers, int64_t heads)
{
    if (layer < 0 || layer >= layers || head < 0 || head >= heads)
        throw Error("attention source: layer " + std::to_string(layer) + " head " + std::to_string(head)
            + " is outside " + std::to_string(layers) + " layers x " + std::to_string(heads) + " heads");
}

/// The heads of [heads, t, d] as separate [1, t, d] tensors.
void splitHeads(const Tensor& t, std::vector<Tensor>& out)
{
    const int64_t rows = t.dim(1) * t.dim(2);
    for (int64_t h = 0; h < t.dim(0); ++h) {
        const float* src = t.data() + h * rows;
        out.emplace_back(Shape { 1, t.dim(1), t.dim(2) }, std::vector<float>(src, src + rows));
    }
}

} // namespace

OwnedQueryKeys::OwnedQueryKeys(const std::vector<Tensor>& queries, const std::vector<Tensor>& keys)
{
    if (queries.empty() || queries.size() != keys.size())
        throw Error("attention source: " + std::to_string(queries.size()) + " query layers for "
            + std::to_string(keys.size()) + " key layers");
    const Shape qs = queries[0].shape(), ks = keys[0].shape();
    if (qs.size() != 3 || ks.size() != 3 || qs[2] != ks[2] || qs[2] < 1 || ks[0] < 1 || qs[0] % ks[0] != 0)
        throw Error("attention source: queries " + shapeToString(qs) + " and keys " + shapeToString(ks)
            + " are not [heads, t, d] with query heads a multiple of key heads");
    for (size_t l = 0; l < queries.size(); ++l) {
        queries[l].expectShape(qs, "attention source queries of layer " + std::to_string(l));
        keys[l].expectShape(ks, "attention source keys of layer " + std::to_string(l));
        splitHeads(queries[l], m_q);
        splitHeads(keys[l], m_k);
    }
    m_layers = static_cast<int64_t>(queries.size());
    m_heads = qs[0];
    m_kvHeads = ks[0];
    m_numQueries = qs[1];
    m_numKeys = ks[1];
}

const Tensor& OwnedQueryKeys::queries(int64_t layer, int64_t head) const
{
    checkIndex(layer, head, m_layers, m_heads);
    return m_q[static_cast<size_t>(layer * m_heads + head)];
}

const Tensor& OwnedQueryKeys::keys(int64_t layer, int64_t kvHead) const
{
    checkIndex(layer, kvHead, m_layers, m_kvHeads);
    return m_k[static_cast<size_t>(layer * m_kvHeads + kvHead)];
}

std::shared_ptr<const OwnedQueryKeys> OwnedQueryKeys::copyOf(const QueryKeyStore& store, int64_t length)
{
    if (length < 1 || length > store.numQueries() || length > store.numKeys())
        throw Error("attention source: " + std::to_string(length) + " positions asked of a store of "
            + std::to_string(store.numQueries()) + " queries and " + std::to_string(store.numKeys()) + " keys");
    // Each head's first `length` rows of its [1, >= length, d] tensor, straight into this store's per-head layout.
    const auto firstRows = [length](const Tensor& t) {
        return Tensor(Shape { 1, length, t.dim(2) }, std::vector<float>(t.data(), t.data() + length * t.dim(2)));
    };
    std::shared_ptr<OwnedQueryKeys> out(new OwnedQueryKeys());
    out->m_layers = store.numLayers();
    out->m_heads = store.numHeads();
    out->m_kvHeads = store.numKvHeads();
    out->m_numQueries = out->m_numKeys = length;
    for (int64_t l = 0; l < out->m_layers; ++l) {
        for (int64_t h = 0; h < out->m_heads; ++h)
            out->m_q.push_back(firstRows(store.queries(l, h)));
        for (int64_t h = 0; h < out->m_kvHeads; ++h)
            out->m_k.push_back(firstRows(store.keys(l, h)));
    }
    return out;
}

CachedQueryKeys::CachedQueryKeys(const KvCache& cache, std::shared_ptr<const void> owner)
    : m_cache(cache)
    , m_owner(std::move(owner))
    , m_alive(cache.lifetime().watch())
    , m_length(cache.length())
    , m_truncations(cache.truncations())
{
}

const KvCache& CachedQueryKeys::checked() const
{
    if (m_alive.expired()) throw Error("attention source: the session's KV cache is gone");
    if (m_cache.shortestSince(m_truncations) < m_length)
        throw Error("attention source: the session was rewound below the " + std::to_string(m_length)
            + " positions this attention was derived from");
    return m_cache;
}

int64_t CachedQueryKeys::numLayers() const
{
    return checked().numLayers();
}
int64_t CachedQueryKeys::numHeads() const
{
    return checked().numQueryHeads();
}
int64_t CachedQueryKeys::numKvHeads() const
{
    return checked().numKvHeads();
}

const Tensor& CachedQueryKeys::queries(int64_t layer, int64_t head) const
{
    return checked().queries(layer, head);
}

const Tensor& CachedQueryKeys::keys(int64_t layer, int64_t kvHead) const
{
    return checked().keys(layer, kvHead);
}

} // namespace attn
