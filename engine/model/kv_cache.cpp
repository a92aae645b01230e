// SPDX-License-Identifier: MIT
#include "model/kv_cache.h"

#include "core/error.h"

#include <algorithm>

namespace attn {
namespace {

/// Sets T of a cache tensor [1, T, dim] whose storage already holds T x dim values. Tensor has no call that changes
/// one dimension in place (adding one means changing core/tensor.h, which nearly every file includes), and reshaped()
/// builds a fresh shape: an allocation and a free per head and layer at every decode step, with the checks of a new
/// tensor, were 6 % of a stories260K decode's instructions. The cache owns these tensors (they are not const
/// objects), so writing through their shape's reference is defined; the storage size matches by construction.
void setRows(Tensor& t, int64_t rows)
{
    const_cast<Shape&>(t.shape())[1] = rows;
}

/// Appends rows [n, dim] (block `head` of a head-major [heads, n, dim] tensor) to a [1, T, dim] tensor.
void appendRows(Tensor& dst, const Tensor& src, int64_t head) {
    const int64_t n = src.shape()[1], dim = src.shape()[2]; // checked [heads, n, dim] by checkRows
    const float* begin = src.data() + head * n * dim;
    auto& storage = dst.storage();
    storage.insert(storage.end(), begin, begin + n * dim);
    setRows(dst, static_cast<int64_t>(storage.size()) / dim);
}

void keepRows(Tensor& t, int64_t rows) {
    t.storage().resize(static_cast<size_t>(rows * t.shape()[2]));
    setRows(t, rows);
}

} // namespace

KvCache::KvCache(int64_t layers, int64_t queryHeads, int64_t kvHeads, int64_t headDim, int64_t valueDim)
    : m_layers(layers)
    , m_queryHeads(queryHeads)
    , m_kvHeads(kvHeads)
    , m_headDim(headDim)
    , m_valueDim(valueDim) {
    for (int64_t i = 0; i < layers * queryHeads; ++i)
        m_q.emplace_back(Shape { 1, 0, headDim });
    for (int64_t i = 0; i < layers * kvHeads; ++i) {
        m_k.emplace_back(Shape { 1, 0, headDim });
        m_v.emplace_back(Shape { 1, 0, valueDim });
    }
}

size_t KvCache::index(int64_t layer, int64_t head, int64_t heads) const {
    if (layer < 0 || layer >= m_layers || head < 0 || head >= heads)
        throw Error("KV cache: layer " + std::to_string(layer) + " head " + std::to_string(head) + " out of range ("
            + std::to_string(m_layers) + " layers, " + std::to_string(heads) + " heads)");
    return static_cast<size_t>(layer * heads + head);
}

void KvCache::reserve(int64_t positions) {
    for (auto& t : m_q)
        t.storage().reserve(static_cast<size_t>(positions * m_headDim));
    for (auto& t : m_k)
        t.storage().reserve(static_cast<size_t>(positions * m_headDim));
    for (auto& t : m_v)
        t.storage().reserve(static_cast<size_t>(positions * m_valueDim));
}

void KvCache::truncate(int64_t positions) {
    if (positions < 0 || positions > m_length)
        throw Error(
            "KV cache: cannot keep " + std::to_string(positions) + " of " + std::to_string(m_length) + " positions");
    for (auto* group : { &m_q, &m_k, &m_v })
        for (auto& t : *group)
            keepRows(t, positions);
    if (positions < m_length)
        m_truncations.push_back(positions);
    m_length = positions;
}

int64_t KvCache::shortestSince(uint64_t seen) const {
    int64_t shortest = m_length;
    for (size_t i = static_cast<size_t>(seen); i < m_truncations.size(); ++i)
        shortest = std::min(shortest, m_truncations[i]);
    return shortest;
}

void KvCache::checkRows(const Shape& q, const Shape& k, const Shape& v) const {
    if (q.size() != 3 || q[0] != m_queryHeads || q[2] != m_headDim || k.size() != 3 || k[0] != m_kvHeads
        || k[2] != m_headDim || v.size() != 3 || v[0] != m_kvHeads || v[2] != m_valueDim || k[1] != q[1]
        || v[1] != q[1])
        throw Error("KV cache: q " + shapeToString(q) + ", k " + shapeToString(k) + ", v " + shapeToString(v)
            + " do not fit the cache");
}

void KvCache::append(int64_t layer, const Tensor& q, const Tensor& k, const Tensor& v) {
    checkRows(q.shape(), k.shape(), v.shape());
    const size_t qs = index(layer, 0, m_queryHeads), kvs = index(layer, 0, m_kvHeads); // a layer's heads are adjacent
    for (int64_t h = 0; h < m_queryHeads; ++h)
        appendRows(m_q[qs + static_cast<size_t>(h)], q, h);
    for (int64_t h = 0; h < m_kvHeads; ++h) {
        appendRows(m_k[kvs + static_cast<size_t>(h)], k, h);
        appendRows(m_v[kvs + static_cast<size_t>(h)], v, h);
    }
}

void KvCache::appendFrom(const KvCache& other, int64_t layer, int64_t first, int64_t n) {
    if (other.m_queryHeads != m_queryHeads || other.m_kvHeads != m_kvHeads || other.m_headDim != m_headDim
        || other.m_valueDim != m_valueDim || first < 0 || n < 0 || first + n > other.m_length)
        throw Error("KV cache: cannot reuse rows " + std::to_string(first) + " + " + std::to_string(n)
            + " of a cache of " + std::to_string(other.m_length) + " positions and another shape");
    const auto gather = [&](const std::vector<Tensor>& from, int64_t heads, int64_t dim) {
        Tensor rows({ heads, n, dim });
        for (int64_t h = 0; h < heads; ++h)
            std::copy_n(from[other.index(layer, h, heads)].data() + first * dim, n * dim, rows.data() + h * n * dim);
        return rows;
    };
    append(layer, gather(other.m_q, m_queryHeads, m_headDim), gather(other.m_k, m_kvHeads, m_headDim),
        gather(other.m_v, m_kvHeads, m_valueDim));
}

void KvCache::commit(int64_t n) {
    for (int64_t l = 0; l < m_layers; ++l)
        if (m_k[index(l, 0, m_kvHeads)].dim(1) != m_length + n)
            throw Error("KV cache: layer " + std::to_string(l) + " was not appended before commit");
    m_length += n;
}

} // namespace attn
