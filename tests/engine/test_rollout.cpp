// SPDX-License-Identifier: MIT
// Attention rollout against a direct matrix product, hand-computed discard / fusion cases, and attention flow
// against closed forms for one and two layers.
#include "analysis/rollout.h"
#include "core/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace attn {
namespace {

/// Random softmax rows: [heads, T, T].
Tensor randomAttention(int64_t heads, int64_t T, std::mt19937& rng)
{
    std::normal_distribution<float> n(0.0f, 1.5f);
    Tensor a({ heads, T, T });
    for (int64_t r = 0; r < heads * T; ++r) {
        float* row = a.data() + r * T;
        float sum = 0;
        for (int64_t j = 0; j < T; ++j)
            sum += row[j] = std::exp(n(rng));
        for (int64_t j = 0; j < T; ++j)
            row[j] /= sum;
    }
    return a;
}

using Dense = std::vector<std::vector<double>>;

/// The textbook definition, written independently: mean over heads, 0.5 A + 0.5 I, R = A_L ... A_1.
Dense directRollout(const std::vector<Tensor>& layers)
{
    const int64_t H = layers[0].dim(0), T = layers[0].dim(1);
    Dense r(T, std::vector<double>(T, 0.0));
    for (int64_t i = 0; i < T; ++i)
        r[i][i] = 1.0;
    for (const Tensor& a : layers) {
        Dense m(T, std::vector<double>(T, 0.0));
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = 0; j < T; ++j) {
                double mean = 0;
                for (int64_t h = 0; h < H; ++h)
                    mean += a.at({ h, i, j });
                m[i][j] = 0.5 * mean / static_cast<double>(H) + (i == j ? 0.5 : 0.0);
            }
        Dense next(T, std::vector<double>(T, 0.0));
        for (int64_t i = 0; i < T; ++i)
            for (int64_t k = 0; k < T; ++k)
                for (int64_t j = 0; j < T; ++j)
                    next[i][j] += m[i][k] * r[k][j];
        r = next;
    }
    return r;
}

TEST(Rollout, MeanFusionMatchesDirectMatrixProduct)
{
    std::mt19937 rng(7);
    std::vector<Tensor> layers;
    for (int l = 0; l < 5; ++l)
        layers.push_back(randomAttention(3, 9, rng));
    const Tensor r = attentionRollout(layers, {});
    const Dense d = directRollout(layers);
    ASSERT_EQ(r.shape(), (Shape { 9, 9 }));
    double err = 0;
    for (int64_t i = 0; i < 9; ++i)
        for (int64_t j = 0; j < 9; ++j)
            err = std::max(err, std::fabs(r.at({ i, j }) - d[i][j]));
    EXPECT_LT(err, 1e-6);
}

TEST(Rollout, RowsSumToOneForEveryFusionAndDiscard)
{
    std::mt19937 rng(11);
    std::vector<Tensor> layers;
    for (int l = 0; l < 4; ++l)
        layers.push_back(randomAttention(4, 12, rng));
    for (HeadFusion f : { HeadFusion::Mean, HeadFusion::Max, HeadFusion::Min })
        for (double discard : { 0.0, 0.3, 0.9 }) {
            RolloutOptions o;
            o.fusion = f;
            o.discardRatio = discard;
            for (const Tensor& m : { rolloutLayerMatrix(layers[0], o), attentionRollout(layers, o) })
                for (int64_t i = 0; i < 12; ++i) {
                    double sum = 0;
                    for (int64_t j = 0; j < 12; ++j) {
                        EXPECT_GE(m.at({ i, j }), 0.0f);
                        sum += m.at({ i, j });
                    }
                    EXPECT_NEAR(sum, 1.0, 1e-6) << "fusion " << int(f) << " discard " << discard << " row " << i;
                }
        }
}

TEST(Rollout, DiscardDropsLowestButNeverTheClassTokenSelfEntry)
{
    // One head, two tokens. The (0,0) entry is the smallest but protected; of the other three, floor(0.5 * 3) = 1
    // is dropped: 0.4 at (1,1). Then (A + I) / 2 = [[0.55, 0.45], [0.3, 0.5]], rows renormalized.
    const Tensor a({ 1, 2, 2 }, { 0.1f, 0.9f, 0.6f, 0.4f });
    RolloutOptions o;
    o.discardRatio = 0.5;
    const Tensor m = rolloutLayerMatrix(a, o);
    EXPECT_NEAR(m.at({ 0, 0 }), 0.55, 1e-7);
    EXPECT_NEAR(m.at({ 0, 1 }), 0.45, 1e-7);
    EXPECT_NEAR(m.at({ 1, 0 }), 0.3 / 0.8, 1e-7);
    EXPECT_NEAR(m.at({ 1, 1 }), 0.5 / 0.8, 1e-7);
}

TEST(Rollout, MaxAndMinFusionPickPerEntry)
{
    const Tensor a({ 2, 2, 2 }, { 0.2f, 0.8f, 0.5f, 0.5f, 0.6f, 0.4f, 0.1f, 0.9f });
    RolloutOptions o;
    o.fusion = HeadFusion::Max; // [[0.6, 0.8], [0.5, 0.9]] + I -> [[1.6, 0.8], [0.5, 1.9]]
    Tensor m = rolloutLayerMatrix(a, o);
    EXPECT_NEAR(m.at({ 0, 0 }), 1.6 / 2.4, 1e-7);
    EXPECT_NEAR(m.at({ 1, 1 }), 1.9 / 2.4, 1e-7);
    o.fusion = HeadFusion::Min; // [[0.2, 0.4], [0.1, 0.5]] + I -> [[1.2, 0.4], [0.1, 1.5]]
    m = rolloutLayerMatrix(a, o);
    EXPECT_NEAR(m.at({ 0, 1 }), 0.4 / 1.6, 1e-7);
    EXPECT_NEAR(m.at({ 1, 0 }), 0.1 / 1.6, 1e-7);
}

TEST(Rollout, RejectsBadInput)
{
    RolloutOptions o;
    EXPECT_THROW(attentionRollout({}, o), Error);
    EXPECT_THROW(attentionRollout({ Tensor({ 2, 3, 4 }) }, o), Error);
    EXPECT_THROW(attentionRollout({ Tensor({ 1, 3, 3 }), Tensor({ 1, 4, 4 }) }, o), Error);
    o.discardRatio = 1.0;
    EXPECT_THROW(attentionRollout({ Tensor({ 1, 3, 3 }) }, o), Error);
    EXPECT_THROW(parseHeadFusion("median"), Error);
    EXPECT_EQ(parseHeadFusion("max"), HeadFusion::Max);
}

TEST(AttentionFlow, OneLayerIsTheTransitionRow)
{
    std::mt19937 rng(3);
    const std::vector<Tensor> layers { randomAttention(2, 6, rng) };
    const Tensor m = rolloutLayerMatrix(layers[0], {});
    const Tensor f = attentionFlow(layers, 2, {});
    ASSERT_EQ(f.shape(), (Shape { 6 }));
    for (int64_t j = 0; j < 6; ++j)
        EXPECT_NEAR(f.at({ j }), m.at({ 2, j }), 1e-6);
}

TEST(AttentionFlow, TwoLayersMatchTheSumOfBottlenecks)
{
    // With two layers every path q -> k -> j uses its own pair of edges, so the max flow to j is
    // sum_k min(M2[q,k], M1[k,j]).
    std::mt19937 rng(5);
    const std::vector<Tensor> layers { randomAttention(3, 7, rng), randomAttention(3, 7, rng) };
    const Tensor m1 = rolloutLayerMatrix(layers[0], {}), m2 = rolloutLayerMatrix(layers[1], {});
    const int64_t q = 0;
    std::vector<double> expected(7, 0.0);
    double total = 0;
    for (int64_t j = 0; j < 7; ++j) {
        for (int64_t k = 0; k < 7; ++k)
            expected[j] += std::min(m2.at({ q, k }), m1.at({ k, j }));
        total += expected[j];
    }
    const Tensor f = attentionFlow(layers, q, {});
    for (int64_t j = 0; j < 7; ++j)
        EXPECT_NEAR(f.at({ j }), expected[j] / total, 1e-6);
}

TEST(AttentionFlow, StatesItsTokenCap)
{
    EXPECT_THROW(
        attentionFlow({ Tensor({ 1, kAttentionFlowMaxTokens + 1, kAttentionFlowMaxTokens + 1 }) }, 0, {}), Error);
    EXPECT_THROW(attentionFlow({ Tensor({ 1, 3, 3 }) }, 3, {}), Error);
}

} // namespace
} // namespace attn
