// SPDX-License-Identifier: MIT
// row_dot_kernels.h over 16-lane AVX-512 registers: each 16-lane sum in one register, half the arithmetic instructions
// of AVX2 for the same bits.
#include "quant/ggml_type.h"
#include "quant/row_dot_isa.h"

#if defined(__x86_64__)
#include <cstdint>
#include <cstring>
// GCC 12 warns that the AVX-512 intrinsics read their own _mm512_undefined_* operand (GCC bug 105593): the warnings
// point into the intrinsics' header, so they are off from there on in this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

// Everything below (and row_dot_kernels.h, whose includes are all above) is compiled for AVX-512F (with AVX2, FMA
// and F16C for the 8-lane parts: the scale unpacking and the final sum).
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma,f16c")
#ifdef __clang__ // clang ignores the GCC pragma (the fuzz build uses clang)
#pragma clang attribute push(__attribute__((target("avx512f,avx2,fma,f16c"))), apply_to = function)
#endif
#include "quant/row_dot_kernels.h"

namespace attn::row_dot {
namespace {

struct Lanes16 {
    using Reg = __m512;
    static constexpr int kWidth = 16;
    static Reg zero() { return _mm512_setzero_ps(); }
    static Reg load(const float* p) { return _mm512_loadu_ps(p); }
    static Reg broadcast(float v) { return _mm512_set1_ps(v); }
    static Reg mul(Reg a, Reg b) { return _mm512_mul_ps(a, b); }
    static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
    static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
    static __m128i bytes16(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
    /// The 16 signed bytes at p.
    static Reg signedBytes(const uint8_t* p) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(bytes16(p))); }
    /// The low and the high nibbles of the 16 bytes at p.
    static void nibbles(const uint8_t* p, Reg& low, Reg& high)
    {
        const __m512i b = _mm512_cvtepu8_epi32(bytes16(p));
        // vpermps reads the low 4 bits of each lane's index: the low nibble's value is looked up, not masked and
        // converted (one instruction fewer per 16 weights on the two ports a 512-bit instruction can take).
        low = _mm512_permutexvar_ps(
            b, _mm512_setr_ps(0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f, 8.f, 9.f, 10.f, 11.f, 12.f, 13.f, 14.f, 15.f));
        high = _mm512_cvtepi32_ps(_mm512_srli_epi32(b, 4));
    }
    /// The 16 bfloat16 (bits << 16) or IEEE halves (vcvtph2ps) at p.
    template <bool Bf16> static Reg halves(const uint8_t* p)
    {
        const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
        if constexpr (Bf16)
            return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16));
        else
            return _mm512_cvtph_ps(bits);
    }
    /// out[0 .. 7] = d times the 8 bytes of scales, out[8 .. 15] = dmin times those of mins (d, dmin: lanes 0, 1 of
    /// dd): the 16 bytes moved from general registers, widened and multiplied 16 at a time.
    static void widenScales(long long scales, long long mins, __m256 dd, float* out)
    {
        const __m512 d = _mm512_permutexvar_ps(
            _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1), _mm512_castps256_ps512(dd));
        const __m128i bytes = _mm_insert_epi64(_mm_cvtsi64_si128(scales), mins, 1);
        _mm512_storeu_ps(out, _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(bytes))));
    }
    /// u - a * b, fused, in lanes 0 .. 7; lanes 8 .. 15 as they are (masked: not computed).
    static Reg subtractFromFirst8(Reg u, const float* a, const float* b)
    {
        return _mm512_mask3_fnmadd_ps(_mm512_castps256_ps512(_mm256_loadu_ps(a)),
            _mm512_castps256_ps512(_mm256_loadu_ps(b)), u, __mmask16(0x00FF));
    }
    /// Lanes 0 .. 7 plus lanes 8 .. 15 of the one register.
    static __m256 foldHalves(Reg lanes, Reg /* the same register */)
    {
        const __m256 high = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(lanes), 1));
        return _mm256_add_ps(_mm512_castps512_ps256(lanes), high);
    }
};

} // namespace

DotsFunction avx512Dots(GgmlType type, int64_t n)
{
    return Kernels<Lanes16>::forType(type, n);
}

} // namespace attn::row_dot
#ifdef __clang__
#pragma clang attribute pop
#endif
#pragma GCC pop_options
#endif
