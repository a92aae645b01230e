// SPDX-License-Identifier: MIT
#include "mechanisms/scale_sweep.h"

#include "mechanisms/attention_math.h"

#include <algorithm>
#include <cmath>

namespace attn {

std::vector<ScalePoint> scaleSweep(int64_t tokens, const std::vector<int64_t>& dks, uint64_t seed)
{
    std::vector<ScalePoint> points;
    for (int64_t dk : dks) {
        const HeadInputs in = syntheticHeadInputs(tokens, dk, seed);
        const Mat raw = in.q * in.k.transpose();
        const KeepMask all = fullKeepMask(tokens);
        const Mat scaled = maskedSoftmax(raw * in.scale, all), unscaled = maskedSoftmax(raw, all);
        points.push_back(
            { dk, meanRowEntropy(scaled), meanRowEntropy(unscaled), meanRowMax(scaled), meanRowMax(unscaled) });
    }
    return points;
}

std::vector<TemperaturePoint> temperatureSweep(const HeadInputs& in, const std::vector<double>& temperatures)
{
    const Mat scaled = exactScores(in); // q k^T * scale, or an RNN's learned score
    const KeepMask keep = modelKeepMask(in);
    std::vector<TemperaturePoint> points;
    for (double t : temperatures) {
        const Mat p = maskedSoftmax(scaled / t, keep);
        points.push_back({ t, meanRowEntropy(p), meanRowMax(p) });
    }
    return points;
}

std::vector<double> temperatureAxis(const std::vector<double>& within)
{
    int lowest = -3, highest = 3; // octaves
    for (double t : within)
        if (t > 0 && std::isfinite(t)) {
            lowest = std::min(lowest, static_cast<int>(std::floor(std::log2(t))));
            highest = std::max(highest, static_cast<int>(std::ceil(std::log2(t))));
        }
    std::vector<double> temperatures;
    for (int half = 2 * lowest; half <= 2 * highest; ++half)
        temperatures.push_back(std::exp2(0.5 * half));
    return temperatures;
}

std::vector<TemperaturePoint> headScaledAs(const HeadInputs& in, const std::vector<int64_t>& dks)
{
    std::vector<double> temperatures;
    for (int64_t dk : dks)
        temperatures.push_back(in.scale * std::sqrt(static_cast<double>(dk)));
    return temperatureSweep(in, temperatures);
}

std::vector<int64_t> powersOfTwo(int64_t largest)
{
    std::vector<int64_t> out;
    for (int64_t v = 1; v <= largest; v *= 2)
        out.push_back(v);
    return out;
}

} // namespace attn
