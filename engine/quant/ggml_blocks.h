// SPDX-License-Identifier: MIT
#pragma once
// Pieces of ggml's block layouts (ggml-quants.c) shared by the dequantization and the fused row dot products.
#include "core/half.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

#if defined(__x86_64__)
/// Groups is and is + 1 of a Q4_K super-block (block_q4_K { half d; half dmin; uint8 scales[12]; uint8 qs[128]; }):
/// their scales and minimums in every lane.
struct Q4_KGroupPair {
    __m256 loScale, loMin, hiScale, hiMin;
};

__attribute__((target("avx2"))) inline Q4_KGroupPair q4kGroupPair(const uint8_t* block, int is)
{
    const float d = half(block), dmin = half(block + 2);
    const ScaleMin lo = groupScale(block + 4, is, d, dmin), hi = groupScale(block + 4, is + 1, d, dmin);
    return { _mm256_set1_ps(lo.scale), _mm256_set1_ps(lo.min), _mm256_set1_ps(hi.scale), _mm256_set1_ps(hi.min) };
}

/// The weights of 8 quant bytes at q of the pair: their low nibbles in group is (lo), their high nibbles in group
/// is + 1 (hi), each scale * q - min, one multiply and one subtraction as ggml's dequantize_row_q4_K.
__attribute__((target("avx2"))) inline void q4kWiden(const Q4_KGroupPair& g, const uint8_t* q, __m256& lo, __m256& hi)
{
    const __m256i bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q)));
    const __m256 qlo = _mm256_cvtepi32_ps(_mm256_and_si256(bytes, _mm256_set1_epi32(0xF)));
    const __m256 qhi = _mm256_cvtepi32_ps(_mm256_srli_epi32(bytes, 4));
    lo = _mm256_sub_ps(_mm256_mul_ps(g.loScale, qlo), g.loMin);
    hi = _mm256_sub_ps(_mm256_mul_ps(g.hiScale, qhi), g.hiMin);
}
#endif

} // namespace attn::ggml_blocks
