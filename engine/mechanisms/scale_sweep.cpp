// SPDX-License-Identifier: MIT
#include "mechanisms/scale_sweep.h"

#include "mechanisms/attention_math.h"

#include <algorithm>
#include <cmath>

namespace attn {

namespace {

ScalePoint scalePoint(int64_t dk, const Mat& scaled, const Mat& unscaled)
{
    return { dk, meanRowEntropy(scaled), meanRowEntropy(unscaled), meanRowMax(scaled), meanRowMax(unscaled) };
}

} // namespace

std::vector<ScalePoint> scaleSweep(int64_t tokens, const std::vector<int64_t>& dks, uint64_t seed, int64_t rowLimit)
{
    const std::vector<int64_t> rows = sweepQueryRows(tokens, rowLimit);
    const KeepMask all = KeepMask::Ones(static_cast<Eigen::Index>(rows.size()), tokens);
    std::vector<ScalePoint> points;
    for (int64_t dk : dks) {
        const HeadInputs in = syntheticHeadInputs(tokens, dk, seed);
        const Mat raw = in.q(rows, Eigen::all) * in.k.transpose();
        points.push_back(scalePoint(dk, maskedSoftmax(raw * in.scale, all), maskedSoftmax(raw, all)));
    }
    return points;
}

ScalePoint headScalePoint(const HeadInputs& in, int64_t rowLimit)
{
    const std::vector<int64_t> rows = sweepQueryRows(in.tokens(), rowLimit);
    const KeepMask keep = modelKeepMask(in, rows);
    Mat raw = in.q(rows, Eigen::all) * in.k.transpose(), scaled = raw * in.scale;
    if (in.bias.size()) {
        raw += in.bias(rows, Eigen::all);
        scaled += in.bias(rows, Eigen::all);
    }
    return scalePoint(in.dim(), maskedSoftmax(scaled, keep), maskedSoftmax(raw, keep));
}

std::vector<TemperaturePoint> temperatureSweep(
    const HeadInputs& in, const std::vector<double>& temperatures, int64_t rowLimit)
{
    const ScoreRows s = exactScoreRows(in, sweepQueryRows(in.tokens(), rowLimit));
    std::vector<TemperaturePoint> points;
    for (double t : temperatures) {
        const Mat p = maskedSoftmax(s.scores / t, s.keep);
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

std::vector<TemperaturePoint> headScaledAs(const HeadInputs& in, const std::vector<int64_t>& dks, int64_t rowLimit)
{
    std::vector<double> temperatures;
    for (int64_t dk : dks)
        temperatures.push_back(in.scale * std::sqrt(static_cast<double>(dk)));
    return temperatureSweep(in, temperatures, rowLimit);
}

std::vector<int64_t> powersOfTwo(int64_t largest)
{
    std::vector<int64_t> out;
    for (int64_t v = 1; v <= largest; v *= 2)
        out.push_back(v);
    return out;
}

} // namespace attn
