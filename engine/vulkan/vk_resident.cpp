// SPDX-License-Identifier: MIT
#include "vulkan/vk_resident.h"

#include "model/kv_cache.h"
#include "quant/packed_matrix.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace attn::vk {

namespace {

template <class Map>
void dropExpired(Map& map)
{
    for (auto it = map.begin(); it != map.end();)
        it = it->first.expired() ? map.erase(it) : std::next(it);
}

constexpr int64_t kMinCapacity = 64;

} // namespace

void Resident::sweep()
{
    dropExpired(m_weights);
    dropExpired(m_packed);
    dropExpired(m_mirrors);
}

BufferRef Resident::weight(const Owner& owner, const float* data, int64_t count, DeviceTraffic& traffic)
{
    const size_t bytes = static_cast<size_t>(count) * sizeof(float);
    const auto upload = [&](const BufferRef& dst) {
        Job job(m_context, m_pool);
        job.uploadInto(dst, 0, data, bytes);
        job.run();
        traffic.uploadedBytes += job.uploadedBytes();
        ++traffic.submits;
    };
    if (owner.expired()) { // no owner to tie a copy to: a copy for this use only
        BufferRef b = m_pool.acquire(bytes, Memory::Device);
        upload(b);
        return b;
    }
    // A cheap guard against a contract breach (a weight freed and another allocated at its address while the owner
    // lives): the copy is refreshed when sampled elements differ.
    const auto bits = [&](int64_t i) {
        uint32_t b = 0;
        std::memcpy(&b, data + i, sizeof b);
        return b;
    };
    const std::array<uint32_t, 3> probe
        = count == 0 ? std::array<uint32_t, 3> {} : std::array { bits(0), bits(count / 2), bits(count - 1) };
    WeightCopy& slot = m_weights[owner][{ data, count }];
    if (!slot.buffer || slot.probe != probe) {
        slot.buffer = m_pool.acquireExact(bytes, Memory::Device);
        slot.probe = probe;
        upload(slot.buffer);
    }
    return slot.buffer;
}

BufferRef Resident::packedRows(
    const Owner& owner, const PackedMatrix& w, int64_t r0, int64_t count, DeviceTraffic& traffic)
{
    const auto upload = [&] {
        std::vector<float> rows(static_cast<size_t>(count * w.cols()));
        w.dequantizeRows(r0, count, rows.data());
        return weight(Owner {}, rows.data(), count * w.cols(), traffic); // a fresh copy, not keyed by the host buffer
    };
    if (owner.expired()) return upload();
    BufferRef& slot = m_packed[owner][{ &w, r0 }];
    if (!slot) slot = upload();
    return slot;
}

LayerMirror& Resident::syncLayer(Job& job, const KvCache& cache, int64_t layer, int64_t rows)
{
    CacheMirror& mirror = m_mirrors[cache.lifetime().watch()];
    mirror.layers.resize(static_cast<size_t>(cache.numLayers()));
    if (mirror.truncationsSeen != cache.truncations()) { // rewinds since the last sync: rows past the cut are stale
        const int64_t shared = cache.shortestSince(mirror.truncationsSeen);
        for (LayerMirror& l : mirror.layers)
            l.valid = std::min(l.valid, shared);
        mirror.truncationsSeen = cache.truncations();
    }
    LayerMirror& m = mirror.layers[static_cast<size_t>(layer)];
    const int64_t hkv = cache.numKvHeads(), past = cache.length();
    const int64_t d = cache.keys(layer, 0).dim(2), dv = cache.values(layer, 0).dim(2);
    // Rows past the committed length may come from a forward that failed or was cancelled.
    m.valid = std::min(m.valid, past);
    if (m.capacity < rows) {
        const int64_t capacity = std::max({ rows, 2 * m.capacity, kMinCapacity });
        LayerMirror grown { m_pool.acquireExact(static_cast<size_t>(hkv * capacity * d) * sizeof(float), Memory::Device),
            m_pool.acquireExact(static_cast<size_t>(hkv * capacity * dv) * sizeof(float), Memory::Device), capacity,
            m.valid };
        for (const auto& [from, to, dim] : { std::tuple { m.k, grown.k, d }, std::tuple { m.v, grown.v, dv } }) {
            if (!from || m.valid == 0)
                continue;
            std::vector<VkBufferCopy> regions;
            for (int64_t g = 0; g < hkv; ++g)
                regions.push_back({ static_cast<VkDeviceSize>(g * m.capacity * dim * 4),
                    static_cast<VkDeviceSize>(g * capacity * dim * 4), static_cast<VkDeviceSize>(m.valid * dim * 4) });
            job.copy(from, to, regions);
        }
        m = std::move(grown);
    }
    for (int64_t g = 0; g < hkv && m.valid < past; ++g) {
        const Tensor& keys = cache.keys(layer, g);
        const Tensor& values = cache.values(layer, g);
        job.uploadInto(m.k, static_cast<size_t>((g * m.capacity + m.valid) * d) * sizeof(float),
            keys.data() + m.valid * d, static_cast<size_t>((past - m.valid) * d) * sizeof(float));
        job.uploadInto(m.v, static_cast<size_t>((g * m.capacity + m.valid) * dv) * sizeof(float),
            values.data() + m.valid * dv, static_cast<size_t>((past - m.valid) * dv) * sizeof(float));
    }
    m.valid = past;
    return m;
}

} // namespace attn::vk
