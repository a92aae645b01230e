// SPDX-License-Identifier: MIT
// analyzeMechanism's metrics where the model's float32 attention rounds weights to zero: a key whose score leads the
// others by more than float32's exp range (~104) leaves them all 0 in float32, while a window that hides that key
// keeps weight on them. KL against the float32 weights would be infinite; the metrics must take the float64 ones.
#include "mechanisms/attention_math.h"
#include "mechanisms/mechanism_report.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn {
namespace {

/// A causal head whose key 0 scores ~190 above every other key for every query (an attention sink beyond float32).
HeadInputs sinkHead()
{
    HeadInputs in = syntheticHeadInputs(8, 16, 3);
    in.causal = true;
    in.q.col(0).setConstant(10.0);
    in.k.row(0).setZero();
    in.k(0, 0) = 80.0; // score 0.25 * 10 * 80 = 200 against |score| < ~10 elsewhere
    return in;
}

TEST(MechanismReport, MetricsTakeTheFloat64WeightsWhereFloat32RoundsThemToZero)
{
    const HeadInputs in = sinkHead();
    const MechanismReport r = analyzeMechanism(in, parseMechanism("window:2"));
    // The case is real: the shown float32 weights of query 5 on keys 4 and 5 are exactly 0, the window's are not.
    ASSERT_EQ(r.exact(5, 4), 0.0);
    ASSERT_GT(r.variant.probs(5, 4), 0.0);
    ASSERT_TRUE(std::isfinite(r.metrics.klMean)) << r.metrics.klMean;
    const Mat reference = exactProbabilities(in);
    const MechanismMetrics expected = compareAttention(reference, reference * in.v, r.variant);
    EXPECT_EQ(r.metrics.klMean, expected.klMean);
    EXPECT_EQ(r.metrics.massKept, expected.massKept);
    EXPECT_GT(r.metrics.klMean, 100.0); // the window drops almost all of the mass: a large, finite divergence
}

TEST(MechanismReport, MetricsUseTheShownFloat32WeightsWhenNothingRoundsToZero)
{
    HeadInputs in = syntheticHeadInputs(8, 16, 3);
    in.causal = true;
    const MechanismReport r = analyzeMechanism(in, parseMechanism("window:2"));
    EXPECT_EQ(r.reference, r.exact);
    EXPECT_TRUE(std::isfinite(r.metrics.klMean));
}

} // namespace
} // namespace attn
