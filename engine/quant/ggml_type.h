// SPDX-License-Identifier: MIT
#pragma once
// ggml's tensor element types (the numbering GGUF files store) and their block layouts.
#include <cstdint>
#include <string>

namespace attn {

/// The ggml types this engine reads; the values are ggml's `enum ggml_type`.
enum class GgmlType : uint32_t {
    F32 = 0,
    F16 = 1,
    Q4_0 = 2,
    Q4_1 = 3,
    Q5_0 = 6,
    Q5_1 = 7,
    Q8_0 = 8,
    Q2_K = 10,
    Q3_K = 11,
    Q4_K = 12,
    Q5_K = 13,
    Q6_K = 14,
    BF16 = 30,
};

/// A row of a tensor is a sequence of blocks: `blockSize` elements stored in `blockBytes` bytes.
struct GgmlTypeTraits {
    GgmlType type;
    const char* name; ///< ggml's name: "q4_K", "f16", ...
    int64_t blockSize;
    int64_t blockBytes;
};

/// The traits of a stored type number, or null when this engine cannot read it (a type ggml has and we do not, or a
/// number ggml does not have).
const GgmlTypeTraits* findGgmlType(uint32_t type);
const GgmlTypeTraits& ggmlTypeTraits(GgmlType type);
/// The names of the readable types, for messages ("f32, f16, bf16, q8_0, ...").
std::string readableGgmlTypes();
/// ggml's name of any type number ggml defines ("iq2_xxs" for 16), or "type N" for one it does not.
std::string ggmlTypeNumberName(uint32_t type);

} // namespace attn
