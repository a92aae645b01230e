// SPDX-License-Identifier: MIT
#pragma once
// Positional encodings: rotary (RoPE) and sinusoidal absolute embeddings.
#include "core/tensor.h"
#include "model/model_config.h"

#include <cstdint>

namespace attn {

/// Rotates x [heads, t, d] in place; row r of every head is at position positionOffset + r.
/// Only the first rotaryDims (even, <= d) dimensions rotate (partial rotary); the rest pass through.
/// RotateHalf (HF Llama): pairs (i, i + rotaryDims/2), inv_freq_i = theta^(-2i/rotaryDims).
/// Interleaved (llama2.c, GPT-J): pairs (2i, 2i + 1), same frequencies.
void applyRope(Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims);

enum class SinusoidLayout {
    SinThenCos, ///< [sin(all freqs) | cos(all freqs)] (Marian, Whisper, tensor2tensor)
    Interleaved, ///< sin, cos, sin, cos ... (Vaswani et al.)
};

/// Sinusoidal position table [numPositions, dim], frequency i = 10000^(-i / (dim/2 - 1)) for SinThenCos as HF Marian /
/// Whisper compute it, and 10000^(-2i/dim) for Interleaved.
Tensor sinusoidalPositions(int64_t numPositions, int64_t dim, SinusoidLayout layout);

} // namespace attn
