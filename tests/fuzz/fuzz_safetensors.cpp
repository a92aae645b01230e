// SPDX-License-Identifier: MIT
// safetensors: the input is a whole .safetensors file (first byte even) or a model.safetensors.index.json (odd)
// beside one small valid shard; every tensor that opens is also converted to float32.
#include "fuzz_target.h"
#include "io/safetensors.h"

#include <cstring>
#include <string>

AS_FUZZ_TARGET(safetensors)
{
    if (size == 0) return;
    std::string path;
    if (data[0] % 2 == 0) {
        path = attn::fuzz::writeScratch("model.safetensors", data + 1, size - 1);
    } else {
        // A valid shard: {"w": F32 [2]} and its 8 bytes.
        const std::string header = R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
        std::string shard(8, '\0');
        for (int i = 0; i < 8; ++i)
            shard[size_t(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
        shard += header + std::string(8, '\0');
        attn::fuzz::writeScratch(
            "model-00001-of-00001.safetensors", reinterpret_cast<const uint8_t*>(shard.data()), shard.size());
        path = attn::fuzz::writeScratch("model.safetensors.index.json", data + 1, size - 1);
    }
    const auto store = attn::SafetensorsStore::open(path);
    for (const auto& name : store->names()) {
        const auto& info = store->info(name);
        if (info.dtype == attn::DType::F32 || info.dtype == attn::DType::F16 || info.dtype == attn::DType::BF16
            || info.dtype == attn::DType::F64)
            store->load(name);
    }
}
