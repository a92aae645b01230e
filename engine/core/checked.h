// SPDX-License-Identifier: MIT
#pragma once
// Checked arithmetic for sizes that come from files (shapes, byte counts, offsets, parameter sums): a product or sum
// that does not fit is an error, never a wrapped value that slips past a later bounds check.
#include "core/error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace attn {

/// a * b, or nullopt when the product overflows int64 or either factor is negative.
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (a < 0 || b < 0 || __builtin_mul_overflow(a, b, &r)) return std::nullopt;
    return r;
}

/// a + b, or nullopt when the sum overflows int64 or either term is negative.
inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b)
{
    int64_t r = 0;
    if (a < 0 || b < 0 || __builtin_add_overflow(a, b, &r)) return std::nullopt;
    return r;
}

/// a * b; throws Error("WHERE: WHAT is too large (A x B overflows 64 bits)") otherwise.
inline int64_t mulOrThrow(int64_t a, int64_t b, const std::string& where, const std::string& what)
{
    if (const auto r = checkedMul(a, b)) return *r;
    throw Error(
        where, what + " is too large (" + std::to_string(a) + " x " + std::to_string(b) + " does not fit in 64 bits)");
}

/// a + b; throws Error as mulOrThrow does.
inline int64_t addOrThrow(int64_t a, int64_t b, const std::string& where, const std::string& what)
{
    if (const auto r = checkedAdd(a, b)) return *r;
    throw Error(
        where, what + " is too large (" + std::to_string(a) + " + " + std::to_string(b) + " does not fit in 64 bits)");
}

} // namespace attn
