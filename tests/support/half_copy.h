// SPDX-License-Identifier: MIT
#pragma once
// Half-precision copies of an hf-tiny fixture: its float32 weights rounded to F16 or BF16, written either half or as
// their exact float32 widening, so a model kept half can be compared with the same numbers widened at load; and the
// bytes a loaded model's weights hold.
#include "core/half.h"
#include "core/tensor.h"
#include "io/safetensors.h"
#include "quant/ggml_type.h"
#include "quant/packed_matrix.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace attn::test {

/// Half bits near f: bfloat16 by round to nearest even; f16 as the nearest value by bisection over the ordered
/// positive halves. Any nearby half would do: the float32 copies hold the exact widening of the bits stored.
inline uint16_t halfBits(float f, GgmlType type)
{
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    if (type == GgmlType::BF16) return static_cast<uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
    const float a = std::fabs(f);
    uint16_t lo = 0, hi = 0x7bff; // 0 .. the largest finite half
    while (hi - lo > 1) {
        const auto mid = static_cast<uint16_t>((lo + hi) / 2);
        (halfToFloat(mid) <= a ? lo : hi) = mid;
    }
    const uint16_t nearest = a - halfToFloat(lo) <= halfToFloat(hi) - a ? lo : hi;
    return static_cast<uint16_t>(nearest | (bits >> 31 << 15));
}

inline float widenedHalf(uint16_t half, GgmlType type)
{
    return type == GgmlType::BF16 ? bf16ToFloat(half) : halfToFloat(half);
}

/// A copy of an hf-tiny fixture folder (config.json and model.safetensors) whose float32 weights are rounded to
/// `type` (F16 or BF16), stored half (`keepHalf`) or as their exact float32 widening: the same numbers, kept half or
/// not.
inline std::string roundedFolder(const std::string& fixture, const std::string& dir, GgmlType type, bool keepHalf)
{
    const std::string src = sharedPath("fixtures/hf-tiny/" + fixture);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(src + "/config.json", dir + "/config.json");
    const auto store = SafetensorsStore::open(src + "/model.safetensors");
    nlohmann::json header = nlohmann::json::object();
    std::string data;
    for (const std::string& name : store->names()) {
        const Tensor t = store->load(name);
        const size_t begin = data.size();
        for (const float f : t.storage()) {
            const uint16_t half = halfBits(f, type);
            const float wide = widenedHalf(half, type);
            if (keepHalf)
                data.append(reinterpret_cast<const char*>(&half), 2);
            else
                data.append(reinterpret_cast<const char*>(&wide), 4);
        }
        header[name] = { { "dtype", keepHalf ? (type == GgmlType::BF16 ? "BF16" : "F16") : "F32" },
            { "shape", t.shape() }, { "data_offsets", { begin, data.size() } } };
    }
    const std::string h = header.dump();
    const uint64_t len = h.size();
    std::ofstream out(dir + "/model.safetensors", std::ios::binary);
    out.write(reinterpret_cast<const char*>(&len), 8);
    out << h << data;
    return dir;
}

/// A loaded model's weights: the matrices (embeddings, projections, feed-forward, heads), which should stay packed,
/// and the rest (norms, biases, the few small tables a family keeps float32), which widen to float32.
struct LoadedWeights {
    std::vector<const Tensor*> matrices, vectors;
};

/// Bytes the loaded weights hold, each storage once (a tied head shares its embedding's): packed matrices at their
/// stored size, everything else as float32.
inline uint64_t weightBytes(const LoadedWeights& w)
{
    std::set<const void*> seen;
    uint64_t bytes = 0;
    for (const auto* list : { &w.matrices, &w.vectors })
        for (const Tensor* t : *list) {
            const void* storage = t->packed() ? static_cast<const void*>(t->packed()) : t->data();
            if (!seen.insert(storage).second) continue;
            bytes += t->packed() ? t->packed()->bytes() : 4 * static_cast<uint64_t>(t->numel());
        }
    return bytes;
}

/// A fixture and the half type its weights are rounded to.
struct HalfCase {
    const char* fixture;
    GgmlType type;
};

/// The case as a test name: "llama_bf16", "vision_encoder_decoder_f16".
inline std::string halfCaseName(const HalfCase& c)
{
    std::string name = std::string(c.fixture) + (c.type == GgmlType::BF16 ? "_bf16" : "_f16");
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

/// Every matrix is packed in `type` (a widening at load fails here; results alone cannot show it), and the weights
/// hold at most 1.15x the bytes of `weightsFile`: the float32 rest (norms, biases, small tables) is a few percent of
/// the tiny fixtures and under 1 % at real sizes, while widened matrices would double the bytes.
inline void expectKeptHalf(const LoadedWeights& w, GgmlType type, const std::string& weightsFile)
{
    for (const Tensor* t : w.matrices) {
        if (!t->packed()) {
            ADD_FAILURE() << shapeToString(t->shape()) << " widened to float32";
            continue;
        }
        EXPECT_EQ(t->packed()->type(), type);
    }
    const auto fileBytes = static_cast<double>(std::filesystem::file_size(weightsFile));
    EXPECT_LE(static_cast<double>(weightBytes(w)), 1.15 * fileBytes);
}

} // namespace attn::test
