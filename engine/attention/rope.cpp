// SPDX-License-Identifier: MIT
#include "attention/rope.h"

#include "core/error.h"

#include <cmath>
#include <string>
#include <vector>

namespace attn {

RotaryEmbedding plainRotary(RopeStyle style, double theta, int64_t rotaryDims) {
    RotaryEmbedding rope;
    rope.style = style;
    rope.rotaryDims = rotaryDims;
    if (style == RopeStyle::None) return rope;
    if (rotaryDims <= 0 || rotaryDims % 2 != 0)
        throw Error("rope: rotary dims " + std::to_string(rotaryDims) + " must be even and positive");
    if (!(theta > 0.0) || !std::isfinite(theta)) throw Error("rope: theta must be positive and finite");
    const float base = static_cast<float>(theta);
    for (int64_t i = 0; i < rotaryDims / 2; ++i)
        rope.invFreq.push_back(1.0f / std::pow(base, static_cast<float>(2 * i) / static_cast<float>(rotaryDims)));
    return rope;
}

void applyRope(Tensor& x, int64_t positionOffset, RopeStyle style, double theta, int64_t rotaryDims) {
    if (style == RopeStyle::None) return;
    applyRope(x, positionOffset, plainRotary(style, theta, rotaryDims));
}

void applyRope(Tensor& x, int64_t positionOffset, const RotaryEmbedding& rope) {
    if (rope.style == RopeStyle::None) return;
    if (x.rank() != 3) throw Error("applyRope: expected [heads, t, d], got " + shapeToString(x.shape()));
    const int64_t heads = x.dim(0), t = x.dim(1), d = x.dim(2), rotaryDims = rope.rotaryDims;
    if (rotaryDims <= 0 || rotaryDims % 2 != 0 || rotaryDims > d)
        throw Error(
            "applyRope: rotary dims " + std::to_string(rotaryDims) + " must be even and in 1.." + std::to_string(d));
    if (static_cast<int64_t>(rope.invFreq.size()) != rotaryDims / 2)
        throw Error("applyRope: " + std::to_string(rope.invFreq.size()) + " frequencies for " + std::to_string(rotaryDims)
            + " rotary dims");
    if (positionOffset < 0) throw Error("applyRope: negative position offset " + std::to_string(positionOffset));

    // cos/sin per (row, frequency) once per call; float32 angle as HF and llama2.c compute it. A decode step's tables
    // (one row) stay on the stack: this runs twice per layer at every step.
    const int64_t half = rotaryDims / 2;
    constexpr int64_t kStackFloats = 512;
    float stackTables[kStackFloats];
    std::vector<float> heapTables(2 * t * half > kStackFloats ? static_cast<size_t>(2 * t * half) : 0);
    float* const cosTable = heapTables.empty() ? stackTables : heapTables.data();
    float* const sinTable = cosTable + t * half;
    for (int64_t i = 0; i < half; ++i) {
        const float invFreq = rope.invFreq[static_cast<size_t>(i)];
        for (int64_t r = 0; r < t; ++r) {
            const float angle = static_cast<float>(positionOffset + r) * invFreq;
            cosTable[r * half + i] = static_cast<float>(std::cos(static_cast<double>(angle))) * rope.cosSinScale;
            sinTable[r * half + i] = static_cast<float>(std::sin(static_cast<double>(angle))) * rope.cosSinScale;
        }
    }

    // Pair (a, b) of frequency i: RotateHalf pairs i with i + half, Interleaved pairs 2i with 2i + 1.
    const int64_t stride = rope.style == RopeStyle::RotateHalf ? 1 : 2;
    const int64_t partner = rope.style == RopeStyle::RotateHalf ? half : 1;
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t r = 0; r < t; ++r) {
            float* row = x.data() + (h * t + r) * d;
            const float* c = cosTable + r * half;
            const float* s = sinTable + r * half;
            for (int64_t i = 0; i < half; ++i) {
                float& a = row[i * stride];
                float& b = row[i * stride + partner];
                const float x0 = a;
                const float x1 = b;
                a = x0 * c[i] - x1 * s[i];
                b = x1 * c[i] + x0 * s[i];
            }
        }
}

namespace {

/// The Whisper table in float32 steps, as torch evaluates sinusoids(): float inv_timescales, float products.
void fillWhisper(Tensor& out, int64_t numPositions, int64_t dim) {
    const int64_t half = dim / 2;
    const float increment = static_cast<float>(std::log(10000.0) / static_cast<double>(half - 1));
    for (int64_t i = 0; i < half; ++i) {
        const float invTimescale = std::exp(-increment * static_cast<float>(i));
        for (int64_t p = 0; p < numPositions; ++p) {
            const double angle = static_cast<float>(p) * invTimescale;
            out.data()[p * dim + i] = static_cast<float>(std::sin(angle));
            out.data()[p * dim + half + i] = static_cast<float>(std::cos(angle));
        }
    }
}

} // namespace

Tensor sinusoidalPositions(int64_t numPositions, int64_t dim, SinusoidLayout layout) {
    if (numPositions < 0 || dim < 1)
        throw Error("sinusoidalPositions: bad size " + std::to_string(numPositions) + " x " + std::to_string(dim));
    Tensor out({ numPositions, dim });
    if (layout == SinusoidLayout::WhisperHalfSplit) {
        if (dim % 2 != 0 || dim < 4)
            throw Error("sinusoidalPositions: the Whisper layout needs an even dim >= 4, got " + std::to_string(dim));
        fillWhisper(out, numPositions, dim);
        return out;
    }
    const int64_t sinColumns = (dim + 1) / 2; // Marian's "sentinel"
    for (int64_t j = 0; j < dim; ++j) {
        // Column j's frequency index and whether it holds sin, per layout.
        const bool marian = layout == SinusoidLayout::MarianHalfSplit;
        const int64_t i = marian ? (j < sinColumns ? j : j - sinColumns) : j / 2;
        const bool isSin = marian ? j < sinColumns : j % 2 == 0;
        const double timescale = std::pow(10000.0, static_cast<double>(2 * i) / static_cast<double>(dim));
        for (int64_t p = 0; p < numPositions; ++p) {
            const double angle = static_cast<double>(p) / timescale;
            out.data()[p * dim + j] = static_cast<float>(isSin ? std::sin(angle) : std::cos(angle));
        }
    }
    return out;
}

} // namespace attn
