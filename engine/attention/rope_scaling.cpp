// SPDX-License-Identifier: MIT
#include "attention/rope_scaling.h"

#include "core/error.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

namespace attn {
namespace {

/// transformers' _compute_llama3_parameters, in float32 as its tensors are.
void scaleLlama3(const RopeScaling& s, std::vector<float>& invFreq)
{
    const float factor = static_cast<float>(s.factor), low = static_cast<float>(s.lowFreqFactor),
                high = static_cast<float>(s.highFreqFactor), orig = static_cast<float>(s.originalMaxPositions);
    const float lowFreqWavelen = orig / low, highFreqWavelen = orig / high;
    for (float& f : invFreq) {
        const float wavelen = 2.0f * std::numbers::pi_v<float> / f;
        if (wavelen < highFreqWavelen) continue; // high frequencies are kept
        if (wavelen > lowFreqWavelen) {
            f /= factor;
            continue;
        }
        const float smooth = (orig / wavelen - low) / (high - low);
        f = (1.0f - smooth) * f / factor + smooth * f;
    }
}

/// Phi3LongRoPEScaledRotaryEmbedding: inv_freq = 1 / (ext * base^(2i / dims)).
void scaleLongRope(const ModelConfig& c, int64_t sequenceLength, RotaryEmbedding& rope)
{
    const RopeScaling& s = c.ropeScaling;
    const std::vector<double>& ext = sequenceLength > s.originalMaxPositions ? s.longFactor : s.shortFactor;
    if (static_cast<int64_t>(ext.size()) != rope.rotaryDims / 2)
        throw Error(c.source,
            "rope_scaling longrope factor lists have " + std::to_string(ext.size()) + " entries; the rotary dims need "
                + std::to_string(rope.rotaryDims / 2));
    const float base = static_cast<float>(c.ropeTheta);
    for (size_t i = 0; i < ext.size(); ++i) {
        const float shape = static_cast<float>(2 * i) / static_cast<float>(rope.rotaryDims);
        rope.invFreq[i] = 1.0f / (static_cast<float>(ext[i]) * std::pow(base, shape));
    }
    double factor = s.attentionFactor;
    if (factor == 0.0) {
        const double scale = static_cast<double>(c.maxPositions) / static_cast<double>(s.originalMaxPositions);
        factor = scale <= 1.0
            ? 1.0
            : std::sqrt(1.0 + std::log(scale) / std::log(static_cast<double>(s.originalMaxPositions)));
    }
    rope.cosSinScale = static_cast<float>(factor);
}

/// transformers' _compute_yarn_parameters, in float32 as its tensors are (the bounds and the attention factor in
/// double, as its Python floats): each pair i blends the interpolated inv_freq_i / factor with the original inv_freq_i
/// by a ramp over the pairs whose wavelength turns between beta_fast and beta_slow times in the original length.
void scaleYarn(const RopeScaling& s, double theta, RotaryEmbedding& rope)
{
    const double dims = static_cast<double>(rope.rotaryDims);
    const auto correctionDim = [&](double rotations) {
        return dims * std::log(static_cast<double>(s.originalMaxPositions) / (rotations * 2.0 * std::numbers::pi))
            / (2.0 * std::log(theta));
    };
    double low = correctionDim(s.betaFast), high = correctionDim(s.betaSlow);
    if (s.truncate) {
        low = std::floor(low);
        high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, dims - 1.0);
    if (low == high) high += 0.001; // transformers' guard against a zero-width ramp
    const float factor = static_cast<float>(s.factor), base = static_cast<float>(theta);
    for (size_t i = 0; i < rope.invFreq.size(); ++i) {
        const float posFreq = std::pow(base, static_cast<float>(2 * i) / static_cast<float>(rope.rotaryDims));
        const float extrapolation = 1.0f / posFreq, interpolation = 1.0f / (factor * posFreq);
        const float ramp = std::clamp(static_cast<float>((static_cast<double>(i) - low) / (high - low)), 0.0f, 1.0f);
        const float keep = 1.0f - ramp; // the share of the original frequency
        rope.invFreq[i] = interpolation * (1.0f - keep) + extrapolation * keep;
    }
    double attention = s.attentionFactor;
    if (attention == 0.0) {
        const auto mscale = [&](double m) { return s.factor <= 1.0 ? 1.0 : 0.1 * m * std::log(s.factor) + 1.0; };
        attention = s.mscale != 0.0 && s.mscaleAllDim != 0.0 ? mscale(s.mscale) / mscale(s.mscaleAllDim) : mscale(1.0);
    }
    rope.cosSinScale = static_cast<float>(attention);
}

} // namespace

bool rotaryDependsOnLength(const RopeScaling& scaling)
{
    return scaling.type == RopeScaling::Type::Dynamic || scaling.type == RopeScaling::Type::LongRope;
}

RotaryEmbedding rotaryEmbedding(const ModelConfig& c, int64_t rotaryDims, int64_t sequenceLength)
{
    const RopeScaling& s = c.ropeScaling;
    double theta = c.ropeTheta;
    // The trained length: the config's, unless a long input raised maxPositions to run past it.
    const int64_t trained = s.originalMaxPositions > 0 ? s.originalMaxPositions : c.maxPositions;
    if (s.type == RopeScaling::Type::Dynamic && sequenceLength > trained) {
        const double dims = static_cast<double>(rotaryDims);
        theta *= std::pow(
            s.factor * static_cast<double>(sequenceLength) / static_cast<double>(trained) - (s.factor - 1.0),
            dims / (dims - 2.0));
    }
    RotaryEmbedding rope = plainRotary(c.ropeStyle, theta, rotaryDims);
    if (c.ropeStyle == RopeStyle::None) return rope;
    switch (s.type) {
    case RopeScaling::Type::None:
    case RopeScaling::Type::Dynamic:
        break;
    case RopeScaling::Type::Linear:
        for (float& f : rope.invFreq)
            f /= static_cast<float>(s.factor);
        break;
    case RopeScaling::Type::Llama3:
        scaleLlama3(s, rope.invFreq);
        break;
    case RopeScaling::Type::LongRope:
        scaleLongRope(c, sequenceLength, rope);
        break;
    case RopeScaling::Type::Yarn:
        scaleYarn(s, theta, rope);
        break;
    case RopeScaling::Type::Frequencies: // as llama.cpp's rope with freq_factors: theta_i = pos * inv_freq_i / f_i
        if (static_cast<int64_t>(s.frequencyFactors.size()) != rotaryDims / 2)
            throw Error(c.source,
                "rope_freqs has " + std::to_string(s.frequencyFactors.size()) + " factors; the rotary dims need "
                    + std::to_string(rotaryDims / 2));
        for (size_t i = 0; i < s.frequencyFactors.size(); ++i)
            rope.invFreq[i] /= static_cast<float>(s.frequencyFactors[i]);
        break;
    }
    return rope;
}

} // namespace attn
