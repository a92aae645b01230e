// SPDX-License-Identifier: MIT
#include "quant/ggml_type.h"

#include <array>

namespace attn {
namespace {

constexpr int64_t kQk = 32; // ggml QK4_0 .. QK8_0
constexpr int64_t kQkK = 256; // ggml QK_K, the super-block of the K-quants

// Bytes per block are sizeof(block_*) in ggml-common.h: halves are 2 bytes, scales and quants packed as listed.
constexpr std::array<GgmlTypeTraits, 13> kTypes { {
    { GgmlType::F32, "f32", 1, 4 }, { GgmlType::F16, "f16", 1, 2 }, { GgmlType::BF16, "bf16", 1, 2 },
    { GgmlType::Q8_0, "q8_0", kQk, 2 + kQk }, // d, qs[32]
    { GgmlType::Q4_0, "q4_0", kQk, 2 + kQk / 2 }, // d, qs[16]
    { GgmlType::Q4_1, "q4_1", kQk, 4 + kQk / 2 }, // d, m, qs[16]
    { GgmlType::Q5_0, "q5_0", kQk, 2 + 4 + kQk / 2 }, // d, qh[4], qs[16]
    { GgmlType::Q5_1, "q5_1", kQk, 4 + 4 + kQk / 2 }, // d, m, qh[4], qs[16]
    { GgmlType::Q2_K, "q2_K", kQkK, kQkK / 16 + kQkK / 4 + 4 }, // scales[16], qs[64], d, dmin
    { GgmlType::Q3_K, "q3_K", kQkK, kQkK / 8 + kQkK / 4 + 12 + 2 }, // hmask[32], qs[64], scales[12], d
    { GgmlType::Q4_K, "q4_K", kQkK, 4 + 12 + kQkK / 2 }, // d, dmin, scales[12], qs[128]
    { GgmlType::Q5_K, "q5_K", kQkK, 4 + 12 + kQkK / 8 + kQkK / 2 }, // d, dmin, scales[12], qh[32], qs[128]
    { GgmlType::Q6_K, "q6_K", kQkK, kQkK / 2 + kQkK / 4 + kQkK / 16 + 2 }, // ql[128], qh[64], scales[16], d
} };

// ggml's type names by number (ggml.c type_traits[].type_name); "" marks removed numbers.
constexpr std::array<const char*, 40> kGgmlNames { "f32", "f16", "q4_0", "q4_1", "", "", "q5_0", "q5_1", "q8_0", "q8_1",
    "q2_K", "q3_K", "q4_K", "q5_K", "q6_K", "q8_K", "iq2_xxs", "iq2_xs", "iq3_xxs", "iq1_s", "iq4_nl", "iq3_s", "iq2_s",
    "iq4_xs", "i8", "i16", "i32", "i64", "f64", "iq1_m", "bf16", "", "", "", "tq1_0", "tq2_0", "", "", "", "mxfp4" };

} // namespace

const GgmlTypeTraits* findGgmlType(uint32_t type)
{
    for (const GgmlTypeTraits& t : kTypes)
        if (static_cast<uint32_t>(t.type) == type) return &t;
    return nullptr;
}

const GgmlTypeTraits& ggmlTypeTraits(GgmlType type)
{
    return *findGgmlType(static_cast<uint32_t>(type));
}

std::string readableGgmlTypes()
{
    std::string out;
    for (const GgmlTypeTraits& t : kTypes)
        out += (out.empty() ? "" : ", ") + std::string(t.name);
    return out;
}

std::string ggmlTypeNumberName(uint32_t type)
{
    if (type < kGgmlNames.size() && *kGgmlNames[type]) return kGgmlNames[type];
    return "type " + std::to_string(type);
}

} // namespace attn
