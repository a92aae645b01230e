// SPDX-License-Identifier: MIT
#pragma once
// Pieces of ggml's block layouts (ggml-quants.c) shared by the dequantization and the fused row dot products.
#include "core/half.h"

#include <cstdint>
#include <cstring>

namespace attn::ggml_blocks {

/// A block's IEEE half scale at p (any alignment).
inline float half(const uint8_t* p)
{
    uint16_t h;
    std::memcpy(&h, p, 2);
    return halfToFloat(h);
}

struct ScaleMin {
    float scale, min;
};

/// ggml's get_scale_min_k4 for group j of the 12 packed scale bytes of Q4_K / Q5_K, times the super-block's d and
/// dmin, as ggml multiplies them.
inline ScaleMin groupScale(const uint8_t* q, int j, float d, float dmin)
{
    uint8_t sc, m;
    if (j < 4) {
        sc = q[j] & 63;
        m = q[j + 4] & 63;
    } else {
        sc = static_cast<uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
        m = static_cast<uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
    }
    return { d * static_cast<float>(sc), dmin * static_cast<float>(m) };
}

} // namespace attn::ggml_blocks
