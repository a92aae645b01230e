// SPDX-License-Identifier: MIT
#pragma once
// Pieces of ggml's block layouts (ggml-quants.c) shared by the scalar and the AVX2 dequantization.
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

/// The 16 signed 6-bit scales of a Q3_K block from its 12 packed bytes at p (ggml's dequantize_row_q3_K: low nibbles
/// and the top 2 bits from the last 4 bytes), each still offset by 32.
inline void q3kScales(const uint8_t* p, int8_t scales[16])
{
    constexpr uint32_t kmask1 = 0x03030303, kmask2 = 0x0f0f0f0f;
    uint32_t aux[4];
    std::memcpy(aux, p, 12);
    const uint32_t tmp = aux[2];
    aux[2] = ((aux[0] >> 4) & kmask2) | (((tmp >> 4) & kmask1) << 4);
    aux[3] = ((aux[1] >> 4) & kmask2) | (((tmp >> 6) & kmask1) << 4);
    aux[0] = (aux[0] & kmask2) | (((tmp >> 0) & kmask1) << 4);
    aux[1] = (aux[1] & kmask2) | (((tmp >> 2) & kmask1) << 4);
    std::memcpy(scales, aux, 16);
}

} // namespace attn::ggml_blocks
