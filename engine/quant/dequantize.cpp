// SPDX-License-Identifier: MIT
#include "quant/dequantize.h"

#include "core/half.h"
#include "quant/dequantize_avx2.h"
#include "quant/ggml_blocks.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <utility>

namespace attn {
namespace {

constexpr int kQk = 32;
constexpr int kQkK = 256;

using ggml_blocks::groupScale;
using ggml_blocks::half;
using ggml_blocks::ScaleMin;

void rowF32(const uint8_t* src, float* y, int64_t n)
{
    std::memcpy(y, src, static_cast<size_t>(n) * 4);
}

#if defined(__x86_64__)
__attribute__((target("f16c,avx"))) void rowF16C(const uint8_t* src, float* y, int64_t n)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(y + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i))));
    for (; i < n; ++i)
        y[i] = half(src + 2 * i);
}
#endif

/// IEEE half widening: F16C's vcvtph2ps where the CPU has it (8 at a time), else the scalar conversion; both exact.
void rowF16(const uint8_t* src, float* y, int64_t n)
{
#if defined(__x86_64__)
    static const bool f16c = cpuHasF16c();
    if (f16c) return rowF16C(src, y, n);
#endif
    for (int64_t i = 0; i < n; ++i)
        y[i] = half(src + 2 * i);
}

void rowBf16(const uint8_t* src, float* y, int64_t n)
{
    // Through an aligned chunk, so that the shift loop vectorizes (the source may sit at any byte offset).
    constexpr int64_t kChunk = 256;
    uint16_t bits[kChunk];
    for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
        const int64_t m = std::min(kChunk, n - i0);
        std::memcpy(bits, src + 2 * i0, static_cast<size_t>(m) * 2);
        for (int64_t i = 0; i < m; ++i) {
            const uint32_t w = static_cast<uint32_t>(bits[i]) << 16;
            std::memcpy(y + i0 + i, &w, 4);
        }
    }
}

// block_q8_0 { half d; int8 qs[32]; }
void blockQ8_0(const uint8_t* b, float* y)
{
    const float d = half(b);
    for (int j = 0; j < kQk; ++j)
        y[j] = static_cast<float>(static_cast<int8_t>(b[2 + j])) * d;
}

// block_q4_0 { half d; uint8 qs[16]; }: low nibbles are elements 0..15, high nibbles 16..31, offset 8.
void blockQ4_0(const uint8_t* b, float* y)
{
    const float d = half(b);
    const uint8_t* qs = b + 2;
    for (int j = 0; j < kQk / 2; ++j) {
        y[j] = static_cast<float>((qs[j] & 0x0F) - 8) * d;
        y[j + kQk / 2] = static_cast<float>((qs[j] >> 4) - 8) * d;
    }
}

// block_q4_1 { half d; half m; uint8 qs[16]; }
void blockQ4_1(const uint8_t* b, float* y)
{
    const float d = half(b), m = half(b + 2);
    const uint8_t* qs = b + 4;
    for (int j = 0; j < kQk / 2; ++j) {
        y[j] = static_cast<float>(qs[j] & 0x0F) * d + m;
        y[j + kQk / 2] = static_cast<float>(qs[j] >> 4) * d + m;
    }
}

// block_q5_0 { half d; uint8 qh[4]; uint8 qs[16]; }: qh holds the fifth bit of all 32 elements.
void blockQ5_0(const uint8_t* b, float* y)
{
    const float d = half(b);
    uint32_t qh;
    std::memcpy(&qh, b + 2, 4);
    const uint8_t* qs = b + 6;
    for (int j = 0; j < kQk / 2; ++j) {
        const int xh0 = static_cast<int>(((qh >> j) << 4) & 0x10);
        const int xh1 = static_cast<int>((qh >> (j + 12)) & 0x10);
        y[j] = static_cast<float>(((qs[j] & 0x0F) | xh0) - 16) * d;
        y[j + kQk / 2] = static_cast<float>(((qs[j] >> 4) | xh1) - 16) * d;
    }
}

// block_q5_1 { half d; half m; uint8 qh[4]; uint8 qs[16]; }
void blockQ5_1(const uint8_t* b, float* y)
{
    const float d = half(b), m = half(b + 2);
    uint32_t qh;
    std::memcpy(&qh, b + 4, 4);
    const uint8_t* qs = b + 8;
    for (int j = 0; j < kQk / 2; ++j) {
        const int xh0 = static_cast<int>(((qh >> j) << 4) & 0x10);
        const int xh1 = static_cast<int>((qh >> (j + 12)) & 0x10);
        y[j] = static_cast<float>((qs[j] & 0x0F) | xh0) * d + m;
        y[j + kQk / 2] = static_cast<float>((qs[j] >> 4) | xh1) * d + m;
    }
}

// block_q2_K { uint8 scales[16]; uint8 qs[64]; half d; half dmin; }: 16 groups of 16, 4-bit scale and min each.
void blockQ2_K(const uint8_t* b, float* y)
{
    const uint8_t* scales = b;
    const uint8_t* q = b + 16;
    const float d = half(b + 80), dmin = half(b + 82);
    int is = 0;
    for (int n = 0; n < kQkK; n += 128) {
        int shift = 0;
        for (int j = 0; j < 4; ++j) {
            for (int half16 = 0; half16 < 2; ++half16) {
                const uint8_t sc = scales[is++];
                const float dl = d * static_cast<float>(sc & 0xF), ml = dmin * static_cast<float>(sc >> 4);
                for (int l = 0; l < 16; ++l)
                    *y++ = dl * static_cast<float>((q[l + 16 * half16] >> shift) & 3) - ml;
            }
            shift += 2;
        }
        q += 32;
    }
}

// block_q3_K { uint8 hmask[32]; uint8 qs[64]; uint8 scales[12]; half d; }: 16 groups, 6-bit signed scales.
void blockQ3_K(const uint8_t* b, float* y)
{
    const uint8_t* hm = b;
    const uint8_t* q = b + 32;
    const float dAll = half(b + 108);
    int8_t scales[16];
    ggml_blocks::q3kScales(b + 96, scales);
    int is = 0;
    uint8_t m = 1;
    for (int n = 0; n < kQkK; n += 128) {
        int shift = 0;
        for (int j = 0; j < 4; ++j) {
            for (int half16 = 0; half16 < 2; ++half16) {
                const float dl = dAll * static_cast<float>(scales[is++] - 32);
                for (int l = 16 * half16; l < 16 * half16 + 16; ++l)
                    *y++ = dl * static_cast<float>(((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
            }
            shift += 2;
            m = static_cast<uint8_t>(m << 1);
        }
        q += 32;
    }
}

// block_q4_K { half d; half dmin; uint8 scales[12]; uint8 qs[128]; }: 8 groups of 32.
void blockQ4_K(const uint8_t* b, float* y)
{
    const float d = half(b), dmin = half(b + 2);
    const uint8_t* scales = b + 4;
    const uint8_t* q = b + 16;
    for (int j = 0, is = 0; j < kQkK; j += 64, is += 2, q += 32) {
        const ScaleMin lo = groupScale(scales, is, d, dmin), hi = groupScale(scales, is + 1, d, dmin);
        for (int l = 0; l < 32; ++l)
            *y++ = lo.scale * static_cast<float>(q[l] & 0xF) - lo.min;
        for (int l = 0; l < 32; ++l)
            *y++ = hi.scale * static_cast<float>(q[l] >> 4) - hi.min;
    }
}

// block_q5_K { half d; half dmin; uint8 scales[12]; uint8 qh[32]; uint8 qs[128]; }
void blockQ5_K(const uint8_t* b, float* y)
{
    const float d = half(b), dmin = half(b + 2);
    const uint8_t* scales = b + 4;
    const uint8_t* qh = b + 16;
    const uint8_t* ql = b + 48;
    uint8_t u1 = 1, u2 = 2;
    for (int j = 0, is = 0; j < kQkK; j += 64, is += 2, ql += 32) {
        const ScaleMin lo = groupScale(scales, is, d, dmin), hi = groupScale(scales, is + 1, d, dmin);
        for (int l = 0; l < 32; ++l)
            *y++ = lo.scale * static_cast<float>((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - lo.min;
        for (int l = 0; l < 32; ++l)
            *y++ = hi.scale * static_cast<float>((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - hi.min;
        u1 = static_cast<uint8_t>(u1 << 2);
        u2 = static_cast<uint8_t>(u2 << 2);
    }
}

// block_q6_K { uint8 ql[128]; uint8 qh[64]; int8 scales[16]; half d; }: 16 groups of 16, 6-bit values offset 32.
void blockQ6_K(const uint8_t* b, float* y)
{
    const uint8_t* ql = b;
    const uint8_t* qh = b + 128;
    const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
    const float d = half(b + 208);
    for (int n = 0; n < kQkK; n += 128, y += 128, ql += 64, qh += 32, sc += 8) {
        for (int l = 0; l < 32; ++l) {
            const int is = l / 16;
            const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
            const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
            const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
            const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
            y[l] = d * static_cast<float>(sc[is]) * static_cast<float>(q1);
            y[l + 32] = d * static_cast<float>(sc[is + 2]) * static_cast<float>(q2);
            y[l + 64] = d * static_cast<float>(sc[is + 4]) * static_cast<float>(q3);
            y[l + 96] = d * static_cast<float>(sc[is + 6]) * static_cast<float>(q4);
        }
    }
}

/// A row of blocks, with the block's code inlined into the loop.
template <void (*Block)(const uint8_t*, float*)>
void rowOf(const uint8_t* src, float* y, int64_t count, const GgmlTypeTraits& t)
{
    for (int64_t i = 0; i < count / t.blockSize; ++i)
        Block(src + i * t.blockBytes, y + i * t.blockSize);
}

using RowFunction = void (*)(const uint8_t*, float*, int64_t, const GgmlTypeTraits&);

constexpr std::pair<GgmlType, RowFunction> kRowFunctions[] = {
    { GgmlType::Q8_0, rowOf<blockQ8_0> },
    { GgmlType::Q4_0, rowOf<blockQ4_0> },
    { GgmlType::Q4_1, rowOf<blockQ4_1> },
    { GgmlType::Q5_0, rowOf<blockQ5_0> },
    { GgmlType::Q5_1, rowOf<blockQ5_1> },
    { GgmlType::Q2_K, rowOf<blockQ2_K> },
    { GgmlType::Q3_K, rowOf<blockQ3_K> },
    { GgmlType::Q4_K, rowOf<blockQ4_K> },
    { GgmlType::Q5_K, rowOf<blockQ5_K> },
    { GgmlType::Q6_K, rowOf<blockQ6_K> },
};

} // namespace

#if defined(__x86_64__)
// From CPUID itself: clang's __builtin_cpu_supports knows no "f16c".
bool cpuHasF16c()
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
    const unsigned osxsave = 1u << 27, avx = 1u << 28, f16c = 1u << 29;
    if ((c & (osxsave | avx | f16c)) != (osxsave | avx | f16c)) return false;
    unsigned lo = 0, hi = 0;
    asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 6u) == 6u; // XMM and YMM state enabled
}
#else
bool cpuHasF16c()
{
    return false;
}
#endif

void dequantizeRowPortable(GgmlType type, const uint8_t* src, float* dst, int64_t count)
{
    if (type == GgmlType::F32) return rowF32(src, dst, count);
    if (type == GgmlType::F16) return rowF16(src, dst, count);
    if (type == GgmlType::BF16) return rowBf16(src, dst, count);
    for (const auto& [rowType, row] : kRowFunctions)
        if (rowType == type) return row(src, dst, count, ggmlTypeTraits(type));
}

void dequantizeRow(GgmlType type, const uint8_t* src, float* dst, int64_t count)
{
    if (const Avx2RowFunction row = avx2DequantizeRow(type)) return row(src, dst, count);
    dequantizeRowPortable(type, src, dst, count);
}

} // namespace attn
