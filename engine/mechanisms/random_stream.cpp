// SPDX-License-Identifier: MIT
#include "mechanisms/random_stream.h"

#include <cmath>
#include <numbers>

namespace attn {

uint64_t RandomStream::nextU64()
{
    uint64_t z = (m_state += kGamma);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double RandomStream::uniform()
{
    return static_cast<double>(nextU64() >> 11) * 0x1.0p-53;
}

double RandomStream::normal()
{
    // 1 - u lies in (0, 1], so the logarithm is finite.
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

uint64_t subSeed(uint64_t seed, uint64_t salt)
{
    RandomStream mix(seed ^ (salt * 0xD1B54A32D192ED03ull));
    return mix.nextU64();
}

} // namespace attn
