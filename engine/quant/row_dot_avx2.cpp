// SPDX-License-Identifier: MIT
// row_dot_kernels.h over 8-lane AVX2 registers: each 16-lane sum in two registers, lanes 0 .. 7 and 8 .. 15.
#include "quant/ggml_type.h"
#include "quant/row_dot_isa.h"

#if defined(__x86_64__)
#include <cstdint>
#include <cstring>
#include <immintrin.h>

// Everything below (and row_dot_kernels.h, whose includes are all above) is compiled for AVX2, FMA and F16C.
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#ifdef __clang__ // clang ignores the GCC pragma (the fuzz build uses clang)
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c"))), apply_to = function)
#endif
#include "quant/row_dot_kernels.h"

namespace attn::row_dot {
namespace {

struct Lanes8 {
    using Reg = __m256;
    static constexpr int kWidth = 8;
    static Reg zero() { return _mm256_setzero_ps(); }
    static Reg load(const float* p) { return _mm256_loadu_ps(p); }
    static Reg broadcast(float v) { return _mm256_set1_ps(v); }
    static Reg mul(Reg a, Reg b) { return _mm256_mul_ps(a, b); }
    static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
    static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
    static __m128i bytes8(const uint8_t* p) { return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)); }
    /// The 8 signed bytes at p.
    static Reg signedBytes(const uint8_t* p) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes8(p))); }
    /// The low and the high nibbles of the 8 bytes at p.
    static void nibbles(const uint8_t* p, Reg& low, Reg& high)
    {
        const __m256i b = _mm256_cvtepu8_epi32(bytes8(p));
        low = _mm256_cvtepi32_ps(_mm256_and_si256(b, _mm256_set1_epi32(0xF)));
        high = _mm256_cvtepi32_ps(_mm256_srli_epi32(b, 4));
    }
    /// The 8 bfloat16 (bits << 16) or IEEE halves (vcvtph2ps) at p.
    template <bool Bf16> static Reg halves(const uint8_t* p)
    {
        const __m128i bits = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        if constexpr (Bf16)
            return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(bits), 16));
        else
            return _mm256_cvtph_ps(bits);
    }
    /// out[0 .. 7] = d times the 8 bytes of scales, out[8 .. 15] = dmin times those of mins (d, dmin: lanes 0, 1 of
    /// dd), each moved from a general register (store forwarding does not pass 8 bytes stored to a wider load).
    static void widenScales(long long scales, long long mins, __m256 dd, float* out)
    {
        _mm256_storeu_ps(out, _mm256_mul_ps(_mm256_broadcastss_ps(_mm256_castps256_ps128(dd)), widen8(scales)));
        _mm256_storeu_ps(out + 8, _mm256_mul_ps(_mm256_permutevar8x32_ps(dd, _mm256_set1_epi32(1)), widen8(mins)));
    }
    /// The 8 bytes of v as float32.
    static __m256 widen8(long long v) { return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(v))); }
    /// u - a * b, fused, in lanes 0 .. 7 (register 0's lanes).
    static Reg subtractFromFirst8(Reg u, const float* a, const float* b)
    {
        return _mm256_fnmadd_ps(_mm256_loadu_ps(a), _mm256_loadu_ps(b), u);
    }
    /// Lanes 0 .. 7 plus lanes 8 .. 15: register 0's sums plus register 1's.
    static __m256 foldHalves(Reg low, Reg high) { return _mm256_add_ps(low, high); }
};

} // namespace

DotsFunction avx2Dots(GgmlType type, int64_t n)
{
    return Kernels<Lanes8>::forType(type, n);
}

} // namespace attn::row_dot
#ifdef __clang__
#pragma clang attribute pop
#endif
#pragma GCC pop_options
#endif
