// SPDX-License-Identifier: MIT
#include "quant/dequantize_avx2.h"

#if defined(__x86_64__)
#include "quant/ggml_blocks.h"

#include <immintrin.h>

#include <cstring>

namespace attn {
namespace {

// Every row here performs, per element, the conversions, the one multiply and the one add or subtract of the scalar
// block in dequantize.cpp (ggml's dequantize_row_*), in the same order, eight elements at a time. AVX2 without FMA:
// nothing is fused, so each lane rounds exactly where the scalar code rounds and the results are the same bits.
#define AS_AVX2 __attribute__((target("avx2")))

using ggml_blocks::groupScale;
using ggml_blocks::half;
using ggml_blocks::ScaleMin;

/// Eight bytes at p, zero-extended to 32-bit lanes.
AS_AVX2 inline __m256i bytes8(const uint8_t* p)
{
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}

AS_AVX2 inline __m256 toFloat(__m256i v)
{
    return _mm256_cvtepi32_ps(v);
}

/// The fifth bits of elements e0 .. e0 + 7 of a Q5_0 / Q5_1 block (bit e of qh), as 0 or 16 per lane.
AS_AVX2 inline __m256i fifthBits(uint32_t qh, int e0)
{
    const __m256i shifts = _mm256_add_epi32(_mm256_set1_epi32(e0), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256i bit
        = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(qh)), shifts), _mm256_set1_epi32(1));
    return _mm256_slli_epi32(bit, 4);
}

/// The 32 quants of a 32-element block with 16 nibble bytes at qs (low nibbles: elements 0..15, high: 16..31) and,
/// for Q5_0 / Q5_1, their fifth bits in qh, each lane through `finish` (int quant -> float weight), stored at y.
template <bool Fifth, class Finish>
AS_AVX2 inline void nibbleBlock(const uint8_t* qs, uint32_t qh, float* y, const Finish& finish)
{
    const __m256i low = _mm256_set1_epi32(0x0F);
    for (int k = 0; k < 2; ++k) { // qs[8k .. 8k + 7]: elements 8k .. 8k + 7 (low) and 16 + 8k .. 23 + 8k (high)
        const __m256i b = bytes8(qs + 8 * k);
        __m256i lo = _mm256_and_si256(b, low), hi = _mm256_srli_epi32(b, 4);
        if constexpr (Fifth) {
            lo = _mm256_or_si256(lo, fifthBits(qh, 8 * k));
            hi = _mm256_or_si256(hi, fifthBits(qh, 16 + 8 * k));
        }
        _mm256_storeu_ps(y + 8 * k, finish(lo));
        _mm256_storeu_ps(y + 16 + 8 * k, finish(hi));
    }
}

/// (q - offset) * d: Q4_0 (offset 8), Q5_0 (16).
struct OffsetTimesScale {
    __m256i offset;
    __m256 d;
    AS_AVX2 __m256 operator()(__m256i q) const { return _mm256_mul_ps(toFloat(_mm256_sub_epi32(q, offset)), d); }
};

/// q * d + m: Q4_1, Q5_1.
struct ScalePlusMin {
    __m256 d, m;
    AS_AVX2 __m256 operator()(__m256i q) const { return _mm256_add_ps(_mm256_mul_ps(toFloat(q), d), m); }
};

/// BF16 is float32's upper half: each word zero-extended and shifted into place, 8 at a time, exact like the scalar
/// widening (baseline SSE2, through a stack copy), which a prefill runs over every bf16 weight once: 3.5 % of a
/// 512-token prefill's CPU samples with it, 2.5 % with this (bench/README.md, branch fam13).
AS_AVX2 void rowBf16(const uint8_t* src, float* y, int64_t count)
{
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256i words = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), _mm256_slli_epi32(words, 16));
    }
    for (; i < count; ++i) {
        const uint32_t wide = static_cast<uint32_t>(src[2 * i] | src[2 * i + 1] << 8) << 16;
        std::memcpy(y + i, &wide, 4);
    }
}

AS_AVX2 void rowQ8_0(const uint8_t* src, float* y, int64_t count)
{
    for (int64_t i = 0; i < count / 32; ++i, src += 34, y += 32) {
        const __m256 d = _mm256_set1_ps(half(src));
        for (int j = 0; j < 32; j += 8) {
            const __m128i q = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(src + 2 + j));
            _mm256_storeu_ps(y + j, _mm256_mul_ps(toFloat(_mm256_cvtepi8_epi32(q)), d));
        }
    }
}

// block_q4_0 { half d; uint8 qs[16]; }: (q - 8) * d.
AS_AVX2 void rowQ4_0(const uint8_t* src, float* y, int64_t count)
{
    const __m256i eight = _mm256_set1_epi32(8);
    for (int64_t i = 0; i < count / 32; ++i, src += 18, y += 32) {
        const __m256 d = _mm256_set1_ps(half(src));
        nibbleBlock<false>(src + 2, 0, y, OffsetTimesScale { eight, d });
    }
}

// block_q4_1 { half d; half m; uint8 qs[16]; }: q * d + m.
AS_AVX2 void rowQ4_1(const uint8_t* src, float* y, int64_t count)
{
    for (int64_t i = 0; i < count / 32; ++i, src += 20, y += 32) {
        const __m256 d = _mm256_set1_ps(half(src)), m = _mm256_set1_ps(half(src + 2));
        nibbleBlock<false>(src + 4, 0, y, ScalePlusMin { d, m });
    }
}

// block_q5_0 { half d; uint8 qh[4]; uint8 qs[16]; }: (q | fifth bit - 16) * d.
AS_AVX2 void rowQ5_0(const uint8_t* src, float* y, int64_t count)
{
    const __m256i sixteen = _mm256_set1_epi32(16);
    for (int64_t i = 0; i < count / 32; ++i, src += 22, y += 32) {
        const __m256 d = _mm256_set1_ps(half(src));
        uint32_t qh;
        std::memcpy(&qh, src + 2, 4);
        nibbleBlock<true>(src + 6, qh, y, OffsetTimesScale { sixteen, d });
    }
}

// block_q5_1 { half d; half m; uint8 qh[4]; uint8 qs[16]; }: (q | fifth bit) * d + m.
AS_AVX2 void rowQ5_1(const uint8_t* src, float* y, int64_t count)
{
    for (int64_t i = 0; i < count / 32; ++i, src += 24, y += 32) {
        const __m256 d = _mm256_set1_ps(half(src)), m = _mm256_set1_ps(half(src + 2));
        uint32_t qh;
        std::memcpy(&qh, src + 4, 4);
        nibbleBlock<true>(src + 8, qh, y, ScalePlusMin { d, m });
    }
}

// block_q2_K { uint8 scales[16]; uint8 qs[64]; half d; half dmin; }: per group of 16, dl * ((q >> shift) & 3) - ml.
AS_AVX2 void rowQ2_K(const uint8_t* src, float* y, int64_t count)
{
    const __m256i three = _mm256_set1_epi32(3);
    for (int64_t i = 0; i < count / 256; ++i, src += 84) {
        const float d = half(src + 80), dmin = half(src + 82);
        const uint8_t* q = src + 16;
        int is = 0;
        for (int n = 0; n < 256; n += 128, q += 32)
            for (int shift = 0; shift < 8; shift += 2)
                for (int h = 0; h < 2; ++h, y += 16) {
                    const uint8_t sc = src[is++];
                    const __m256 dl = _mm256_set1_ps(d * static_cast<float>(sc & 0xF));
                    const __m256 ml = _mm256_set1_ps(dmin * static_cast<float>(sc >> 4));
                    for (int l = 0; l < 16; l += 8) {
                        const __m256i v = _mm256_and_si256(_mm256_srli_epi32(bytes8(q + 16 * h + l), shift), three);
                        _mm256_storeu_ps(y + l, _mm256_sub_ps(_mm256_mul_ps(dl, toFloat(v)), ml));
                    }
                }
    }
}

// block_q3_K { uint8 hmask[32]; uint8 qs[64]; uint8 scales[12]; half d; }: dl * (((q >> shift) & 3) - (hm & m ? 0 :
// 4)); the 6-bit signed scales unpacked as the scalar code unpacks them (ggml_blocks::q3kScales).
AS_AVX2 void rowQ3_K(const uint8_t* src, float* y, int64_t count)
{
    const __m256i three = _mm256_set1_epi32(3), four = _mm256_set1_epi32(4), zero = _mm256_setzero_si256();
    for (int64_t i = 0; i < count / 256; ++i, src += 110) {
        const uint8_t* hm = src;
        const uint8_t* q = src + 32;
        const float dAll = half(src + 108);
        int8_t scales[16];
        ggml_blocks::q3kScales(src + 96, scales);
        int is = 0, bit = 1;
        for (int n = 0; n < 256; n += 128, q += 32)
            for (int shift = 0; shift < 8; shift += 2, bit <<= 1)
                for (int h = 0; h < 2; ++h, y += 16) {
                    const __m256 dl = _mm256_set1_ps(dAll * static_cast<float>(scales[is++] - 32));
                    const __m256i m = _mm256_set1_epi32(bit);
                    for (int l = 0; l < 16; l += 8) {
                        const int at = 16 * h + l;
                        const __m256i v = _mm256_and_si256(_mm256_srli_epi32(bytes8(q + at), shift), three);
                        const __m256i unset = _mm256_cmpeq_epi32(_mm256_and_si256(bytes8(hm + at), m), zero);
                        const __m256i qv = _mm256_sub_epi32(v, _mm256_and_si256(unset, four));
                        _mm256_storeu_ps(y + l, _mm256_mul_ps(dl, toFloat(qv)));
                    }
                }
    }
}

/// Groups is and is + 1 of a Q4_K super-block (block_q4_K { half d; half dmin; uint8 scales[12]; uint8 qs[128]; }):
/// their scales and minimums in every lane.
struct Q4_KGroupPair {
    __m256 loScale, loMin, hiScale, hiMin;
};

AS_AVX2 inline Q4_KGroupPair q4kGroupPair(const uint8_t* block, int is)
{
    const float d = half(block), dmin = half(block + 2);
    const ScaleMin lo = groupScale(block + 4, is, d, dmin), hi = groupScale(block + 4, is + 1, d, dmin);
    return { _mm256_set1_ps(lo.scale), _mm256_set1_ps(lo.min), _mm256_set1_ps(hi.scale), _mm256_set1_ps(hi.min) };
}

/// The weights of 8 quant bytes at q of the pair: their low nibbles in group is (lo), their high nibbles in group
/// is + 1 (hi), each scale * q - min, one multiply and one subtraction as ggml's dequantize_row_q4_K. scale * q is
/// exact in float32 (11 + 6 + 4 significant bits), so where a compiler fuses the two into one FMA the bits are the
/// same.
AS_AVX2 inline void q4kWiden(const Q4_KGroupPair& g, const uint8_t* q, __m256& lo, __m256& hi)
{
    const __m256i bytes = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(q)));
    const __m256 qlo = _mm256_cvtepi32_ps(_mm256_and_si256(bytes, _mm256_set1_epi32(0xF)));
    const __m256 qhi = _mm256_cvtepi32_ps(_mm256_srli_epi32(bytes, 4));
    lo = _mm256_sub_ps(_mm256_mul_ps(g.loScale, qlo), g.loMin);
    hi = _mm256_sub_ps(_mm256_mul_ps(g.hiScale, qhi), g.hiMin);
}

// block_q4_K: 8 groups of 32, scale * q - min (q4kWiden).
AS_AVX2 void rowQ4_K(const uint8_t* src, float* y, int64_t count)
{
    for (int64_t i = 0; i < count / 256; ++i, src += 144) {
        const uint8_t* q = src + 16;
        for (int is = 0; is < 8; is += 2, q += 32, y += 64) {
            const Q4_KGroupPair g = q4kGroupPair(src, is);
            for (int l = 0; l < 32; l += 8) {
                __m256 lo, hi;
                q4kWiden(g, q + l, lo, hi);
                _mm256_storeu_ps(y + l, lo);
                _mm256_storeu_ps(y + 32 + l, hi);
            }
        }
    }
}

// block_q5_K { half d; half dmin; uint8 scales[12]; uint8 qh[32]; uint8 qs[128]; }: scale * (q + (qh & u ? 16 : 0))
// - min per group of 32.
AS_AVX2 void rowQ5_K(const uint8_t* src, float* y, int64_t count)
{
    const __m256i low = _mm256_set1_epi32(0x0F), sixteen = _mm256_set1_epi32(16), zero = _mm256_setzero_si256();
    for (int64_t i = 0; i < count / 256; ++i, src += 176) {
        const float d = half(src), dmin = half(src + 2);
        const uint8_t* qh = src + 16;
        const uint8_t* ql = src + 48;
        for (int is = 0, u1 = 1; is < 8; is += 2, ql += 32, u1 <<= 2, y += 64) {
            const ScaleMin lo = groupScale(src + 4, is, d, dmin), hi = groupScale(src + 4, is + 1, d, dmin);
            const __m256 loScale = _mm256_set1_ps(lo.scale), loMin = _mm256_set1_ps(lo.min);
            const __m256 hiScale = _mm256_set1_ps(hi.scale), hiMin = _mm256_set1_ps(hi.min);
            const __m256i m1 = _mm256_set1_epi32(u1), m2 = _mm256_set1_epi32(u1 << 1);
            for (int l = 0; l < 32; l += 8) {
                const __m256i b = bytes8(ql + l), h = bytes8(qh + l);
                const __m256i h1 = _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(h, m1), zero), sixteen);
                const __m256i h2 = _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(h, m2), zero), sixteen);
                const __m256i qlo = _mm256_add_epi32(_mm256_and_si256(b, low), h1);
                const __m256i qhi = _mm256_add_epi32(_mm256_srli_epi32(b, 4), h2);
                _mm256_storeu_ps(y + l, _mm256_sub_ps(_mm256_mul_ps(loScale, toFloat(qlo)), loMin));
                _mm256_storeu_ps(y + 32 + l, _mm256_sub_ps(_mm256_mul_ps(hiScale, toFloat(qhi)), hiMin));
            }
        }
    }
}

// block_q6_K { uint8 ql[128]; uint8 qh[64]; int8 scales[16]; half d; }: d * scale * (q - 32), the product d * scale
// first, as the scalar code associates it.
AS_AVX2 void rowQ6_K(const uint8_t* src, float* y, int64_t count)
{
    const __m256i low = _mm256_set1_epi32(0x0F), three = _mm256_set1_epi32(3), off = _mm256_set1_epi32(32);
    for (int64_t i = 0; i < count / 256; ++i, src += 210) {
        const uint8_t* ql = src;
        const uint8_t* qh = src + 128;
        const auto* sc = reinterpret_cast<const int8_t*>(src + 192);
        const float d = half(src + 208);
        for (int n = 0; n < 256; n += 128, y += 128, ql += 64, qh += 32, sc += 8)
            for (int l = 0; l < 32; l += 8) {
                const int is = l / 16;
                const __m256i a = bytes8(ql + l), b = bytes8(ql + l + 32), h = bytes8(qh + l);
                const __m256i q[4] = {
                    _mm256_or_si256(_mm256_and_si256(a, low), _mm256_slli_epi32(_mm256_and_si256(h, three), 4)),
                    _mm256_or_si256(_mm256_and_si256(b, low),
                        _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(h, 2), three), 4)),
                    _mm256_or_si256(_mm256_srli_epi32(a, 4),
                        _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(h, 4), three), 4)),
                    _mm256_or_si256(_mm256_srli_epi32(b, 4), _mm256_slli_epi32(_mm256_srli_epi32(h, 6), 4)),
                };
                for (int k = 0; k < 4; ++k) {
                    const __m256 ds = _mm256_set1_ps(d * static_cast<float>(sc[is + 2 * k]));
                    _mm256_storeu_ps(y + l + 32 * k, _mm256_mul_ps(ds, toFloat(_mm256_sub_epi32(q[k], off))));
                }
            }
    }
}

#undef AS_AVX2

} // namespace

Avx2RowFunction avx2DequantizeRow(GgmlType type)
{
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (!avx2) return nullptr;
    switch (type) {
    case GgmlType::BF16:
        return rowBf16;
    case GgmlType::Q8_0:
        return rowQ8_0;
    case GgmlType::Q4_0:
        return rowQ4_0;
    case GgmlType::Q4_1:
        return rowQ4_1;
    case GgmlType::Q5_0:
        return rowQ5_0;
    case GgmlType::Q5_1:
        return rowQ5_1;
    case GgmlType::Q2_K:
        return rowQ2_K;
    case GgmlType::Q3_K:
        return rowQ3_K;
    case GgmlType::Q4_K:
        return rowQ4_K;
    case GgmlType::Q5_K:
        return rowQ5_K;
    case GgmlType::Q6_K:
        return rowQ6_K;
    default:
        return nullptr;
    }
}

} // namespace attn

#else

namespace attn {

Avx2RowFunction avx2DequantizeRow(GgmlType)
{
    return nullptr;
}

} // namespace attn

#endif
