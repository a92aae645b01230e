// SPDX-License-Identifier: MIT
// The statistical claims of the mechanisms, asserted on numbers: Performer's kernel estimate is unbiased and its error
// falls with m, Linformer's error falls with k, and the 1/sqrt(d_k) argument of the scale plot. Seeds are fixed, so
// each claim is checked on the same draws everywhere (the draws are integer SplitMix64 arithmetic; only libm's log /
// cos in Box-Muller touch them, correctly rounded to well below these margins).
#include "mechanisms/attention_math.h"
#include "mechanisms/linear_attention.h"
#include "mechanisms/mechanism_report.h"
#include "mechanisms/scale_sweep.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <vector>

namespace attn {
namespace {

TEST(MechanismsStats, PerformerKernelIsUnbiasedOver200Seeds)
{
    // |x|^2 = |q|^2 / sqrt(d) ~ 1 here (q, k halved): phi(q) . phi(k) is log-normal with log-variance ~ |x + y|^2,
    // so at the unit-variance norms (|x|^2 ~ 4) 200 draws would not estimate its standard error reliably.
    const HeadInputs in = syntheticHeadInputs(6, 16, 41);
    const double root = 0.5 * std::sqrt(in.scale);
    const Mat xq = in.q * root, xk = in.k * root;
    constexpr int seeds = 200;
    for (int i = 0; i < 6; ++i) {
        const int j = (i + 2) % 6;
        const double exact = std::exp(xq.row(i).dot(xk.row(j)));
        double sum = 0.0, sumSq = 0.0;
        for (int s = 0; s < seeds; ++s) {
            const Mat w = performerFeatures(64, 16, static_cast<uint64_t>(s));
            const double estimate = performerPhi(xq.row(i), w).row(0).dot(performerPhi(xk.row(j), w).row(0));
            sum += estimate;
            sumSq += estimate * estimate;
        }
        const double mean = sum / seeds, var = (sumSq - seeds * mean * mean) / (seeds - 1);
        const double standardError = std::sqrt(var / seeds);
        EXPECT_LT(std::abs(mean - exact), 3.0 * standardError)
            << "pair " << i << "," << j << ": mean " << mean << " exact " << exact << " se " << standardError;
        EXPECT_GT(standardError, 0.0);
    }
}

/// Mean over 20 seeds of out_rel_err of `variant` (with SEED appended) on synthetic T = 32, d = 16, q and k halved
/// (as above: at unit variance Performer's log-normal estimates need far more features to settle).
double meanError(const std::string& variant)
{
    HeadInputs in = syntheticHeadInputs(32, 16, 5);
    in.q *= 0.5;
    in.k *= 0.5;
    double total = 0.0;
    for (int s = 0; s < 20; ++s)
        total += analyzeMechanism(in, parseMechanism(variant + ":" + std::to_string(s))).metrics.outRelErr;
    return total / 20.0;
}

TEST(MechanismsStats, PerformerErrorFallsWithFeatureCount)
{
    double previous = INFINITY;
    for (int m : { 4, 16, 64, 256, 1024 }) {
        const double error = meanError("performer:" + std::to_string(m));
        std::cout << "performer m = " << m << ": mean out_rel_err " << error << "\n";
        EXPECT_LT(error, previous) << "m = " << m;
        previous = error;
    }
    EXPECT_LT(previous, 0.5 * meanError("performer:4"));
}

TEST(MechanismsStats, LinformerErrorFallsWithProjectionSize)
{
    double previous = INFINITY;
    for (int k : { 2, 8, 32, 128 }) {
        const double error = meanError("linformer:" + std::to_string(k));
        std::cout << "linformer k = " << k << ": mean out_rel_err " << error << "\n";
        EXPECT_LT(error, previous) << "k = " << k;
        previous = error;
    }
}

TEST(MechanismsStats, UnscaledEntropyFallsWithDkAndScaledDoesNot)
{
    const std::vector<ScalePoint> points = scaleSweep(64, powersOfTwo(1024), 7);
    ASSERT_EQ(points.size(), 11u);
    const double uniform = std::log(64.0);
    for (size_t i = 1; i < points.size(); ++i) {
        EXPECT_LT(points[i].entropyUnscaled, points[i - 1].entropyUnscaled) << "d_k " << points[i].dk;
        EXPECT_GT(points[i].maxUnscaled, points[i - 1].maxUnscaled) << "d_k " << points[i].dk;
    }
    // Unscaled rows saturate: at d_k = 1024 the scores have standard deviation 32, nearly one-hot.
    EXPECT_LT(points.back().entropyUnscaled, 0.15 * uniform);
    EXPECT_GT(points.back().maxUnscaled, 0.8);
    // Scaled rows keep a unit-variance spread: every d_k within 5% of log T of the d_k = 1 value.
    for (const ScalePoint& p : points) {
        EXPECT_NEAR(p.entropyScaled, points.front().entropyScaled, 0.05 * uniform) << "d_k " << p.dk;
        EXPECT_LT(p.maxScaled, 0.3) << "d_k " << p.dk;
    }
}

TEST(MechanismsStats, HigherTemperatureFlattensTheHead)
{
    const std::vector<TemperaturePoint> points = temperatureSweep(syntheticHeadInputs(24, 16, 3), temperatureAxis({}));
    ASSERT_EQ(points.size(), 13u); // 2^-3 .. 2^3, half an octave apart
    EXPECT_EQ(points.front().temperature, 0.125);
    EXPECT_EQ(points[6].temperature, 1.0);
    EXPECT_EQ(points.back().temperature, 8.0);
    for (size_t i = 1; i < points.size(); ++i) {
        EXPECT_GT(points[i].entropy, points[i - 1].entropy) << "tau " << points[i].temperature;
        EXPECT_LT(points[i].maxWeight, points[i - 1].maxWeight) << "tau " << points[i].temperature;
    }
    EXPECT_LT(points.back().entropy, std::log(24.0));
}

TEST(MechanismsStats, TemperatureAxisTakesInTheSliderTemperatures)
{
    // A d = 8 head at d_k = 1 .. 1024 sits at tau = sqrt(d_k / 8) = 0.35 .. 11.3: the axis widens to 2^4, not below.
    const std::vector<double> axis = temperatureAxis({ std::sqrt(1.0 / 8.0), std::sqrt(1024.0 / 8.0) });
    EXPECT_EQ(axis.front(), 0.125);
    EXPECT_EQ(axis.back(), 16.0);
    for (size_t i = 1; i < axis.size(); ++i)
        EXPECT_NEAR(axis[i] / axis[i - 1], std::sqrt(2.0), 1e-12);
    EXPECT_EQ(temperatureAxis({ 1.0 / 64 }).front(), 1.0 / 64);
}

} // namespace
} // namespace attn
