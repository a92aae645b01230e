// SPDX-License-Identifier: MIT
#pragma once
// Row tails for the AVX2 kernels (softmax, small products, activations).
#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

namespace attn {

/// Lanes [0, count) set, the rest clear (count <= 8): a row's tail, loaded and stored without touching what follows.
inline __attribute__((target("avx2"))) __m256i firstLanes(int64_t count)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

} // namespace attn

#endif
