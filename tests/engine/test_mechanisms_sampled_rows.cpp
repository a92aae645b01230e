// SPDX-License-Identifier: MIT
// The Mechanisms tab's row-wise measures on a sample of query rows against the whole-head computations they replace,
// restricted to the same rows: the temperature, d_k and scale curves, GQA's per-head error and the FlashAttention
// tiles. Every row of these depends on its own query only, so the two sides are the same numbers summed in another
// order (a [rows, T] product instead of [T, T]): 1e-12, far below what a wrong row, mask or bias moves (> 1e-3).
#include "core/error.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/flash_attention.h"
#include "mechanisms/grouped_kv.h"
#include "mechanisms/mechanism_report.h"
#include "mechanisms/scale_sweep.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

namespace attn {
namespace {

constexpr double kTol = 1e-12;

/// `m`'s rows `rows`.
Mat rowsOf(const Mat& m, const std::vector<int64_t>& rows)
{
    return m(rows, Eigen::all);
}

/// A causal head with a sliding window and an additive bias (as T5's): every piece the sampled rows restrict.
HeadInputs biasedCausalHead(int64_t tokens)
{
    HeadInputs in = syntheticHeadInputs(tokens, 16, 5);
    in.causal = true;
    in.slidingWindow = 37;
    in.bias = 0.1 * syntheticHeadInputs(tokens, tokens, 6).q;
    return in;
}

TEST(SampledRows, AreEvenlySpacedAndAllOfAShortHead)
{
    const std::vector<int64_t> rows = sweepQueryRows(1000, 256);
    ASSERT_EQ(rows.size(), 256u);
    EXPECT_EQ(rows.front(), 0);
    EXPECT_EQ(rows.back(), 999);
    for (size_t i = 1; i < rows.size(); ++i)
        EXPECT_GT(rows[i], rows[i - 1]);
    EXPECT_EQ(sweepQueryRows(100, 256).size(), 100u);
}

TEST(SampledRows, ScoresAndMaskAreTheWholeHeadsRows)
{
    const HeadInputs in = biasedCausalHead(300);
    const std::vector<int64_t> rows = sweepQueryRows(300, 40);
    const ScoreRows s = exactScoreRows(in, rows);
    EXPECT_LE((s.scores - rowsOf(exactScores(in), rows)).cwiseAbs().maxCoeff(), kTol);
    EXPECT_TRUE(s.keep == KeepMask(modelKeepMask(in)(rows, Eigen::all)));
    EXPECT_LE((exactProbabilityRows(in, rows) - rowsOf(exactProbabilities(in), rows)).cwiseAbs().maxCoeff(), kTol);
}

TEST(SampledRows, TemperatureAndScaleCurvesAreTheirRowsOfTheWholeHead)
{
    const HeadInputs in = biasedCausalHead(300);
    const std::vector<int64_t> rows = sweepQueryRows(300, 40);
    const Mat scores = exactScores(in);
    const KeepMask keep = modelKeepMask(in);
    const std::vector<double> temperatures { 0.25, 1.0, 3.0 };
    const std::vector<TemperaturePoint> points = temperatureSweep(in, temperatures, 40);
    ASSERT_EQ(points.size(), temperatures.size());
    for (size_t t = 0; t < temperatures.size(); ++t) {
        const Mat p = rowsOf(maskedSoftmax(scores / temperatures[t], keep), rows);
        EXPECT_NEAR(points[t].entropy, meanRowEntropy(p), kTol);
        EXPECT_NEAR(points[t].maxWeight, meanRowMax(p), kTol);
    }
    // Scaled as the model runs it and unscaled (q k^T + bias) on the same rows.
    const ScalePoint head = headScalePoint(in, 40);
    Mat unscaled = in.q * in.k.transpose() + in.bias;
    EXPECT_NEAR(head.entropyScaled, meanRowEntropy(rowsOf(maskedSoftmax(scores, keep), rows)), kTol);
    EXPECT_NEAR(head.entropyUnscaled, meanRowEntropy(rowsOf(maskedSoftmax(unscaled, keep), rows)), kTol);
    EXPECT_NEAR(head.maxUnscaled, meanRowMax(rowsOf(maskedSoftmax(unscaled, keep), rows)), kTol);
    EXPECT_GT(std::abs(head.entropyScaled - head.entropyUnscaled), 1e-3); // the two differ: each was computed
    // The synthetic sweep: unit-variance q, k of width d_k at 300 tokens.
    const std::vector<ScalePoint> sweep = scaleSweep(300, { 4, 64 }, 9, 40);
    for (const ScalePoint& p : sweep) {
        const HeadInputs s = syntheticHeadInputs(300, p.dk, 9);
        const Mat raw = s.q * s.k.transpose();
        const KeepMask all = fullKeepMask(300);
        EXPECT_NEAR(p.entropyScaled, meanRowEntropy(rowsOf(maskedSoftmax(raw * s.scale, all), rows)), kTol);
        EXPECT_NEAR(p.entropyUnscaled, meanRowEntropy(rowsOf(maskedSoftmax(raw, all), rows)), kTol);
    }
}

TEST(SampledRows, FlashTilesOnRowsAreThoseRowsOfTheWholePass)
{
    const HeadInputs in = biasedCausalHead(150);
    const std::vector<int64_t> rows = sweepQueryRows(150, 23);
    for (const auto& [bq, bk] : { std::pair<int64_t, int64_t> { 4, 4 }, { 7, 16 }, { 64, 5 } }) {
        SCOPED_TRACE(std::to_string(bq) + "x" + std::to_string(bk));
        const MechanismResult whole
            = runFlashAttention(in, parseMechanism("flash:" + std::to_string(bq) + ":" + std::to_string(bk)));
        const FlashRows f = flashAttentionRows(in, bq, bk, rows);
        EXPECT_LE((f.out - rowsOf(whole.out, rows)).cwiseAbs().maxCoeff(), kTol);
        // Running max and sum per key block: the whole pass's columns of those rows (-inf before a row's first key).
        const Mat& max = whole.arrays[0].values;
        const Mat& sum = whole.arrays[1].values;
        ASSERT_EQ(whole.arrays[0].name, "running_max");
        ASSERT_EQ(f.runningMax.rows(), max.rows());
        for (size_t r = 0; r < rows.size(); ++r)
            for (Eigen::Index b = 0; b < max.rows(); ++b) {
                const double a = f.runningMax(b, static_cast<Eigen::Index>(r)), e = max(b, rows[r]);
                if (std::isinf(e))
                    EXPECT_EQ(a, e);
                else
                    EXPECT_NEAR(a, e, kTol);
                EXPECT_NEAR(f.runningSum(b, static_cast<Eigen::Index>(r)), sum(b, rows[r]), kTol * sum(b, rows[r]));
            }
        EXPECT_EQ(static_cast<double>(f.tilesVisited), whole.numbers.at("tiles_visited"));
        EXPECT_EQ(f.io.flash, whole.numbers.at("bytes_moved"));
        // And the output is exact on them.
        EXPECT_LE((f.out - exactProbabilityRows(in, rows) * in.v).cwiseAbs().maxCoeff(), 1e-9);
    }
    EXPECT_THROW(flashAttentionRows(in, 4, 4, { 3, 2 }), Error);
    EXPECT_THROW(flashAttentionRows(in, 0, 4, rows), Error);
}

TEST(SampledRows, GqaPerHeadErrorIsTheWholeHeadsOnThoseRows)
{
    // Four query heads on two KV heads of one layer, synthetic, pooled into one group (MQA).
    std::vector<HeadInputs> layer;
    auto kv = std::make_shared<LayerKv>();
    for (int g = 0; g < 2; ++g) {
        const HeadInputs s = syntheticHeadInputs(200, 8, 20 + g);
        kv->keys.push_back(s.k);
        kv->values.push_back(s.v);
    }
    for (int h = 0; h < 4; ++h) {
        HeadInputs in = syntheticHeadInputs(200, 8, 30 + h);
        in.causal = true;
        in.numHeads = 4;
        in.head = h;
        in.kvHead = h / 2;
        in.layerKv = kv;
        in.k = kv->keys[static_cast<size_t>(in.kvHead)];
        in.v = kv->values[static_cast<size_t>(in.kvHead)];
        layer.push_back(in);
    }
    const MechanismSpec spec = parseMechanism("gqa:1");
    const std::vector<MechanismMetrics> sampled = groupedKvPerHead(layer, spec, 30);
    ASSERT_EQ(sampled.size(), 4u);
    const std::vector<int64_t> rows = sweepQueryRows(200, 30);
    for (size_t h = 0; h < layer.size(); ++h) {
        const MechanismResult whole = runMechanism(layer[h], spec);
        MechanismResult onRows;
        onRows.probs = rowsOf(whole.probs, rows);
        onRows.out = rowsOf(whole.out, rows);
        const Mat exact = rowsOf(exactProbabilities(layer[h]), rows);
        const MechanismMetrics expected = compareAttention(exact, exact * layer[h].v, onRows);
        EXPECT_NEAR(sampled[h].klMean, expected.klMean, kTol) << h;
        EXPECT_NEAR(sampled[h].outRelErr, expected.outRelErr, kTol) << h;
        EXPECT_GT(expected.outRelErr, 1e-3) << h; // pooling two KV heads changes every head
    }
}

} // namespace
} // namespace attn
