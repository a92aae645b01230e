// SPDX-License-Identifier: MIT
#pragma once
// Positional encodings: rotary (RoPE) and sinusoidal absolute embeddings.
#include "core/tensor.h"
#include "model/model_config.h"

#include <cstdint>
#include <vector>

namespace attn {

/// One model's rotation: which dims pair up, the float32 inverse frequency of each pair, and a factor on cos and sin
/// (longrope's attention factor; 1 elsewhere). RoPE scaling (rope_scaling.h) only changes the frequencies and factor.
struct RotaryEmbedding {
    RopeStyle style = RopeStyle::None;
    int64_t rotaryDims = 0; ///< even; the first rotaryDims dims of a head rotate
    std::vector<float> invFreq; ///< rotaryDims / 2 entries
    float cosSinScale = 1.0f;
};

/// Plain RoPE: inv_freq_i = 1 / theta^(2i / rotaryDims), in float32 as HF and llama2.c compute it.
/// Throws Error on a bad rotaryDims or theta.
RotaryEmbedding plainRotary(RopeStyle style, double theta, int64_t rotaryDims);

/// Rotates x [heads, t, d] in place by `rope`; row r of every head is at position positionOffset + r. The angle
/// position * inv_freq is a float32 product (as HF and llama2.c); cos and sin of it are exact, then times cosSinScale.
/// Throws Error on a bad rank, rotary dims or offset.
void applyRope(Tensor& x, int64_t positionOffset, const RotaryEmbedding& rope);

/// applyRope() with plainRotary(style, theta, rotaryDims). Rotates x [heads, t, d] in place; row r of every head is at position positionOffset + r.
/// Only the first rotaryDims (even, 0 < rotaryDims <= d) dimensions rotate (partial rotary); the rest pass through.
/// RotateHalf (HF Llama rotate_half): pairs (i, i + rotaryDims/2). Interleaved (llama2.c run.c, GPT-J): pairs
/// (2i, 2i + 1). Both use inv_freq_i = 1 / theta^(2i / rotaryDims), and, like HF and llama2.c, compute inv_freq and
/// the angle position * inv_freq in float32 (so results match theirs at large positions too); cos/sin of that angle
/// are exact. RopeStyle::None leaves x unchanged. Throws Error on a bad rank, rotaryDims, theta or offset.
void applyRope(Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims);

/// Sinusoidal absolute position tables. The two half-split variants differ in their frequencies:
enum class SinusoidLayout {
    /// HF Marian (MarianSinusoidalPositionalEmbedding._init_weight): angle
    /// pos / 10000^(2i / dim); columns [0, ceil(dim/2)) hold sin, the rest cos (odd dim allowed). Computed in double.
    MarianHalfSplit,
    /// OpenAI / HF Whisper sinusoids(): angle pos * exp(-i * ln(10000) / (dim/2 - 1)), [sin | cos]; dim even and >= 4.
    /// Computed in float32 as torch does, so it matches the stored Whisper embed_positions to ~1 ulp.
    WhisperHalfSplit,
    /// Vaswani et al.: column 2i = sin, 2i + 1 = cos, angle pos / 10000^(2i / dim). Computed in double.
    Interleaved,
};

/// Sinusoidal position table [numPositions, dim] in the given layout (positions 0 .. numPositions - 1).
Tensor sinusoidalPositions(int64_t numPositions, int64_t dim, SinusoidLayout layout);

} // namespace attn
