// SPDX-License-Identifier: MIT
// approximationSweep against the whole-head path it replaced: per draw, runMechanism (the variant on every row, as
// `attnscope-cli mechanisms` runs it) against the float64 head. With every row measured the sweep equals the mean
// of those runs' out_rel_err; with rows sampled it equals the same relative error restricted to those rows of the
// whole-head outputs. Both sides are float64 from the same float32 inputs in another summation order (row blocks,
// BLAS kernels): 1e-9 relative, far below any change of a draw, a row or a mask (those move the error by > 1e-3).
#include "core/error.h"
#include "mechanisms/approximation_sweep.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/linformer_draws.h"
#include "mechanisms/mechanism.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace attn {
namespace {

constexpr double kRelTol = 1e-9;
constexpr int kSeeds = 3;

/// A causal head with an additive bias (as T5's) on synthetic inputs: every piece the sweep restricts to its rows.
HeadInputs biasedCausalHead(int64_t tokens)
{
    HeadInputs in = syntheticHeadInputs(tokens, 16, 5);
    in.causal = true;
    in.bias = 0.1 * syntheticHeadInputs(tokens, tokens, 6).q;
    return in;
}

/// A causal head without a bias: Performer's sweep takes its running sums over the keys (no [rows, T] kernel).
HeadInputs causalHead(int64_t tokens)
{
    HeadInputs in = syntheticHeadInputs(tokens, 16, 5);
    in.causal = true;
    return in;
}

/// The mean over seeds of |out - reference out| / |reference out| over `rows` of the whole-head runs (runMechanism),
/// against the float64 head as the sweep measures (analyzeMechanism's reference is the model's float32 kernel):
/// Linformer's unmasked, Performer's under the model's mask.
double wholeHeadError(const HeadInputs& in, const std::string& family, int64_t size, const std::vector<int64_t>& rows)
{
    const Mat reference
        = (family == "linformer" ? maskedSoftmax(exactScores(in), fullKeepMask(in.tokens())) : exactProbabilities(in))
        * in.v;
    double sum = 0;
    for (int s = 0; s < kSeeds; ++s) {
        const MechanismResult r
            = runMechanism(in, parseMechanism(family + ":" + std::to_string(size) + ":" + std::to_string(s)));
        double diff = 0, norm = 0;
        for (const int64_t i : rows) {
            diff += (r.out.row(i) - reference.row(i)).squaredNorm();
            norm += reference.row(i).squaredNorm();
        }
        sum += std::sqrt(diff / norm);
    }
    return sum / kSeeds;
}

TEST(ApproximationSweep, EveryRowEqualsThePerDrawAnalysis)
{
    const std::vector<int64_t> all = sweepQueryRows(40, 40);
    for (const HeadInputs& in : { syntheticHeadInputs(40, 16, 3), biasedCausalHead(40), causalHead(40) })
        for (const std::string family : { "linformer", "performer" }) {
            SCOPED_TRACE(family);
            const ApproximationSweep sweep = approximationSweep(in, family, { 2, 8, 32 }, kSeeds);
            EXPECT_EQ(sweep.rows, 40);
            EXPECT_EQ(sweep.tokens, 40);
            ASSERT_EQ(sweep.points.size(), 3u);
            for (const SweepPoint& p : sweep.points) {
                const double mean = wholeHeadError(in, family, p.size, all);
                EXPECT_NEAR(p.outRelErr, mean, kRelTol * mean) << p.size;
            }
        }
}

TEST(ApproximationSweep, SampledRowsAreThoseRowsOfTheWholeHead)
{
    const std::vector<int64_t> rows = sweepQueryRows(300, 16);
    ASSERT_EQ(rows.size(), 16u);
    EXPECT_EQ(rows.front(), 0);
    EXPECT_EQ(rows.back(), 299);
    for (size_t i = 1; i < rows.size(); ++i)
        EXPECT_GT(rows[i], rows[i - 1]);
    EXPECT_EQ(sweepQueryRows(12, 16).size(), 12u);

    for (const HeadInputs& in : { biasedCausalHead(300), causalHead(300), syntheticHeadInputs(300, 16, 3) })
        for (const std::string family : { "linformer", "performer" }) {
            SCOPED_TRACE(family + (in.causal ? " causal" : " bidirectional") + (in.bias.size() ? " biased" : ""));
            const ApproximationSweep sweep = approximationSweep(in, family, { 4, 64, 20 }, kSeeds, 16);
            EXPECT_EQ(sweep.rows, 16);
            EXPECT_EQ(sweep.tokens, 300);
            ASSERT_EQ(sweep.points.size(), 3u);
            for (const SweepPoint& p : sweep.points) {
                const double expected = wholeHeadError(in, family, p.size, rows);
                EXPECT_NEAR(p.outRelErr, expected, kRelTol * expected) << p.size;
            }
        }
    const HeadInputs in = biasedCausalHead(300);
    EXPECT_THROW(approximationSweep(in, "linformer", { 8192 }, 1), Error);
    EXPECT_THROW(approximationSweep(in, "reformer", { 8 }, 1), Error);
}

// The Mechanisms tab's head switch: Linformer's projections depend on the input's length and the seed only, so the
// next head of the same input reads them back instead of drawing them again, and gets the same numbers as drawing.
// What is drawn is drawn once per seed for every size (a size's normals are the first rows of the largest's): at
// 4,096 tokens the sizes past the budget (1,024 .. 4,096) took 470 M normals per head drawn one by one, 268 M so.
TEST(ApproximationSweep, LinformerDrawsAreKeptForTheNextHeadOfTheInput)
{
    const std::vector<int64_t> sizes { 2, 8, 32 };
    const HeadInputs first = syntheticHeadInputs(40, 16, 3), second = biasedCausalHead(40);
    LinformerDraws draws;
    for (const HeadInputs* in : { &first, &second }) {
        const ApproximationSweep kept = approximationSweep(*in, "linformer", sizes, kSeeds, 16, {}, &draws);
        const ApproximationSweep drawn = approximationSweep(*in, "linformer", sizes, kSeeds, 16);
        ASSERT_EQ(kept.points.size(), drawn.points.size());
        for (size_t i = 0; i < kept.points.size(); ++i)
            EXPECT_EQ(kept.points[i].outRelErr, drawn.points[i].outRelErr) << sizes[i];
        EXPECT_EQ(draws.draws(), kSeeds) << "one draw per seed for every size; the second head draws none";
    }
    // The largest size's rows of E's and F's draws hold every size's.
    EXPECT_EQ(draws.bytes(), 2 * 32 * 40 * kSeeds * static_cast<int64_t>(sizeof(float)));

    // Past the budget nothing more is kept: what does not fit is drawn each time, with the same numbers.
    LinformerDraws small(2 * 8 * 40 * sizeof(float));
    const ApproximationSweep once = approximationSweep(first, "linformer", { 8, 32 }, 1, 16, {}, &small);
    const ApproximationSweep twice = approximationSweep(first, "linformer", { 8, 32 }, 1, 16, {}, &small);
    EXPECT_EQ(small.draws(), 2); // 8 and 32 from one draw, its first 8 rows kept; then rows 8 .. 31 drawn again
    EXPECT_EQ(once.points.back().outRelErr, twice.points.back().outRelErr);
}

// Every size of a seed from one product per projection, each size the same bits as linformer:k:SEED computed alone
// (its probabilities and output from E k and F v, which linformerProduct sums in an order that does not depend on
// how many rows it computes), on a causal and a bidirectional head, from fresh draws and from kept first rows (a
// budget that keeps 5 rows: the others are drawn again on the next call).
TEST(ApproximationSweep, EveryLinformerSizeFromOneProductIsThatSizeComputedAlone)
{
    const std::vector<int64_t> sizes { 1, 3, 5, 8, 13, 64, 70 };
    const HeadInputs bidirectional = syntheticHeadInputs(37, 12, 4), causal = causalHead(37);
    for (const HeadInputs* in : { &bidirectional, &causal }) {
        SCOPED_TRACE(in->causal ? "causal" : "bidirectional");
        LinformerDraws draws(5 * 2 * 37 * sizeof(float));
        for (int call = 0; call < 2; ++call) {
            const std::vector<LinformerProducts> shared = draws.products(sizes, in->k, in->v, 9);
            ASSERT_EQ(shared.size(), sizes.size());
            for (size_t i = 0; i < sizes.size(); ++i) {
                const MechanismResult alone
                    = runMechanism(*in, parseMechanism("linformer:" + std::to_string(sizes[i]) + ":9"));
                const Mat probs = linformerProbs(in->q, shared[i].ek, in->scale);
                ASSERT_EQ(probs.cols(), sizes[i]);
                EXPECT_TRUE(probs == alone.probs) << sizes[i] << " (call " << call << ")";
                EXPECT_TRUE(probs * shared[i].fv == alone.out) << sizes[i] << " (call " << call << ")";
            }
        }
        EXPECT_EQ(draws.draws(), 2); // rows 5 .. 69 drawn on both calls
        EXPECT_EQ(draws.multiplies(), 4) << "E k and F v once per call, not once per size";
    }
    // The product's rows do not depend on how many are computed with it, whatever the row count's remainder.
    const LinformerNormals z = linformerNormals(11, 37, 3);
    const Mat all = linformerProduct(z, bidirectional.k);
    for (int64_t rows = 1; rows <= 11; ++rows)
        EXPECT_TRUE(linformerProduct(z.topRows(rows), bidirectional.k) == all.topRows(rows)) << rows;
}

} // namespace
} // namespace attn
