// SPDX-License-Identifier: MIT
#pragma once
// What stays on the device between forwards: model weights, uploaded once, and a mirror of each KV cache, synced
// from the host cache (the source of truth the views read) only where it is behind. Entries go when their owner's
// LifetimeToken expires. Private to engine/vulkan; callers hold the context mutex.
#include "backend/backend.h"
#include "core/tensor.h"
#include "vulkan/vk_job.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace attn {
class KvCache;
}

namespace attn::vk {

using Owner = std::weak_ptr<const void>;

/// One layer of a KV mirror: K [hkv, capacity, d] and V [hkv, capacity, dv]; rows [0, valid) equal the host cache.
struct LayerMirror {
    BufferRef k, v;
    int64_t capacity = 0;
    int64_t valid = 0;
};

class Resident {
public:
    Resident(Context& context, BufferPool& pool)
        : m_context(context)
        , m_pool(pool)
    {
    }

    /// Drops the entries of owners that are gone.
    void sweep();
    /// The device copy of data[0, count), part of a weight of `owner`, uploaded by a job of its own the first time (so
    /// that a large model's first forward never holds staging memory for all of its weights at once).
    BufferRef weight(const Owner& owner, const float* data, int64_t count, DeviceTraffic& traffic);
    /// Rows [r0, r0 + count) of a packed weight of `owner` (quantized, f16, bf16) as float32 on the device: the
    /// kernels multiply float32, so the rows are dequantized on the host and uploaded the first time (a packed
    /// weight takes four bytes per element on the device, its file's size on the host).
    BufferRef packedRows(const Owner& owner, const PackedMatrix& w, int64_t r0, int64_t count, DeviceTraffic& traffic);
    /// The mirror of `layer` of `cache` with room for `rows` positions and rows [0, cache.length()) in sync.
    LayerMirror& syncLayer(Job& job, const KvCache& cache, int64_t layer, int64_t rows);

private:
    using WeightKey = std::pair<const float*, int64_t>;
    struct WeightCopy {
        BufferRef buffer;
        std::array<uint32_t, 3> probe {}; ///< bits of the first, middle and last element when uploaded
    };
    Context& m_context;
    BufferPool& m_pool;
    std::map<Owner, std::map<WeightKey, WeightCopy>, std::owner_less<>> m_weights;
    std::map<Owner, std::map<std::pair<const PackedMatrix*, int64_t>, BufferRef>, std::owner_less<>> m_packed;
    struct CacheMirror {
        std::vector<LayerMirror> layers;
        uint64_t truncationsSeen = 0;
    };
    std::map<Owner, CacheMirror, std::owner_less<>> m_mirrors;
};

} // namespace attn::vk
