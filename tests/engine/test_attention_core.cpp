// SPDX-License-Identifier: MIT
// The CPU attention core against a plain double-precision nested-loop reference written from the definitions.
#include "attention/attention.h"
#include "attention/softmax_avx2.h"
#include "core/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace attn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor randomTensor(Shape shape, uint32_t seed, float stddev = 1.0f) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, stddev);
    Tensor t(std::move(shape));
    for (float& x : t.storage())
        x = dist(rng);
    return t;
}

/// Visibility straight from the MaskSpec documentation (HF Mistral convention for the causal window).
bool refVisible(const MaskSpec& spec, int64_t i, int64_t j) {
    const int64_t p = spec.queryOffset + i;
    if (spec.causal && j > p) return false;
    if (spec.slidingWindow > 0) {
        if (spec.causal && p - j >= spec.slidingWindow) return false;
        if (!spec.causal && std::abs(p - j) >= spec.slidingWindow) return false;
    }
    if (!spec.keyKeep.empty() && spec.keyKeep[static_cast<size_t>(j)] == 0) return false;
    return true;
}

double perHead(const Tensor* t, int64_t h, int64_t i, int64_t j) {
    return t->rank() == 2 ? t->at({ i, j }) : t->at({ t->dim(0) == 1 ? 0 : h, i, j });
}

struct Reference {
    std::vector<double> probs; // [hq, q, k]
    std::vector<double> output; // [hq, q, dv]
};

Reference referenceAttention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options) {
    const int64_t hq = q.dim(0), nq = q.dim(1), d = q.dim(2), hkv = k.dim(0), nk = k.dim(1), dv = v.dim(2);
    const double scale = options.scale != 0.0f ? options.scale : 1.0 / std::sqrt(static_cast<double>(d));
    const MaskSpec& spec = options.mask;
    Reference ref;
    ref.probs.assign(static_cast<size_t>(hq * nq * nk), 0.0);
    ref.output.assign(static_cast<size_t>(hq * nq * dv), 0.0);
    for (int64_t h = 0; h < hq; ++h) {
        const int64_t kvh = h / (hq / hkv);
        for (int64_t i = 0; i < nq; ++i) {
            std::vector<double> s(static_cast<size_t>(nk), -kInf);
            double m = -kInf;
            for (int64_t j = 0; j < nk; ++j) {
                if (!refVisible(spec, i, j) || (spec.keepMask && perHead(spec.keepMask, h, i, j) == 0.0)) continue;
                double dot = 0.0;
                for (int64_t c = 0; c < d; ++c)
                    dot += static_cast<double>(q.at({ h, i, c })) * k.at({ kvh, j, c });
                double x = scale * dot + (spec.bias ? perHead(spec.bias, h, i, j) : 0.0);
                s[static_cast<size_t>(j)] = x;
                m = std::max(m, x);
            }
            if (m == -kInf) continue;
            double sum = 0.0;
            for (double& x : s)
                sum += (x = x == -kInf ? 0.0 : std::exp(x - m));
            for (int64_t j = 0; j < nk; ++j) {
                const double p = s[static_cast<size_t>(j)] / sum;
                ref.probs[static_cast<size_t>((h * nq + i) * nk + j)] = p;
                for (int64_t c = 0; c < dv; ++c)
                    ref.output[static_cast<size_t>((h * nq + i) * dv + c)] += p * v.at({ kvh, j, c });
            }
        }
    }
    return ref;
}

/// Every element within 1e-6 of the reference, relative to the reference tensor's largest magnitude
/// (float32 dot products over 80 terms cannot promise more per element).
void expectNear(const Tensor& actual, const std::vector<double>& ref, const std::string& what) {
    ASSERT_EQ(actual.numel(), static_cast<int64_t>(ref.size())) << what;
    double scale = 0.0;
    for (double r : ref)
        scale = std::max(scale, std::abs(r));
    double worst = 0.0;
    for (size_t n = 0; n < ref.size(); ++n) {
        ASSERT_TRUE(std::isfinite(actual.data()[n])) << what << " element " << n;
        worst = std::max(worst, std::abs(actual.data()[n] - ref[n]));
    }
    EXPECT_LE(worst, 1e-6 * std::max(scale, 1e-30)) << what << " (reference magnitude " << scale << ")";
}

void expectMaskedExactlyZero(const Tensor& probs, const std::vector<double>& ref, const std::string& what) {
    for (size_t n = 0; n < ref.size(); ++n)
        if (ref[n] == 0.0) {
            ASSERT_EQ(probs.data()[n], 0.0f) << what << " element " << n;
        }
}

std::string describe(int64_t hq, int64_t hkv, int64_t nq, int64_t nk, int64_t d, const MaskSpec& m) {
    return "hq=" + std::to_string(hq) + " hkv=" + std::to_string(hkv) + " q=" + std::to_string(nq)
        + " k=" + std::to_string(nk) + " d=" + std::to_string(d) + " causal=" + std::to_string(m.causal)
        + " offset=" + std::to_string(m.queryOffset) + " window=" + std::to_string(m.slidingWindow);
}

TEST(AttentionCore, MatchesReferenceAcrossShapes) {
    const std::vector<int64_t> sizes { 1, 3, 7, 64, 129 };
    const std::vector<int64_t> headDims { 1, 8, 16, 80 };
    const std::vector<std::pair<int64_t, int64_t>> heads { { 1, 1 }, { 4, 2 }, { 3, 1 }, { 2, 2 } };
    uint32_t seed = 1;
    int variant = 0;
    for (int64_t nq : sizes)
        for (int64_t nk : sizes) {
            const int64_t d = headDims[static_cast<size_t>(variant % 4)];
            const int64_t dv = headDims[static_cast<size_t>((variant + 1) % 4)];
            const auto [hq, hkv] = heads[static_cast<size_t>(variant % 3 == 0 ? variant % 4 : (variant + 2) % 4)];
            ++variant;
            const Tensor q = randomTensor({ hq, nq, d }, seed++);
            const Tensor k = randomTensor({ hkv, nk, d }, seed++);
            const Tensor v = randomTensor({ hkv, nk, dv }, seed++);
            for (int mode = 0; mode < 3; ++mode) {
                AttentionOptions options;
                options.mask.causal = mode >= 1;
                options.mask.queryOffset = mode >= 1 ? std::max<int64_t>(0, nk - nq) : 0;
                options.mask.slidingWindow = mode == 2 ? 5 : 0;
                const std::string what = describe(hq, hkv, nq, nk, d, options.mask);
                const AttentionResult result = multiHeadAttention(q, k, v, options);
                const Reference ref = referenceAttention(q, k, v, options);
                ASSERT_EQ(result.probs.shape(), (Shape { hq, nq, nk })) << what;
                ASSERT_EQ(result.output.shape(), (Shape { hq, nq, dv })) << what;
                expectNear(result.probs, ref.probs, "probs " + what);
                expectNear(result.output, ref.output, "output " + what);
                expectMaskedExactlyZero(result.probs, ref.probs, what);
            }
        }
}

TEST(AttentionCore, LargeInputsSpanManyTilesAndMatchTheReference) {
    // 1,100 keys: a tile holds 238 rows, so each head's rows span five tiles finished on every core, and the 2.4M-float
    // result takes the populated allocation. Causal, a causal window and padded keys (the exact softmax path); without
    // probabilities an observer sees the same final rows.
    const int64_t n = 1100, d = 8;
    const Tensor q = randomTensor({ 2, n, d }, 91), k = randomTensor({ 1, n, d }, 92), v = randomTensor({ 1, n, 4 }, 93);
    for (int mode = 0; mode < 3; ++mode) {
        AttentionOptions options;
        options.mask.causal = mode < 2;
        options.mask.slidingWindow = mode == 1 ? 300 : 0;
        if (mode == 2) {
            options.mask.keyKeep.assign(static_cast<size_t>(n), 1);
            for (int64_t j = 0; j < n; j += 7)
                options.mask.keyKeep[static_cast<size_t>(j)] = 0;
        }
        const std::string what = describe(2, 1, n, n, d, options.mask);
        const AttentionResult result = multiHeadAttention(q, k, v, options);
        const Reference ref = referenceAttention(q, k, v, options);
        expectNear(result.probs, ref.probs, "probs " + what);
        expectNear(result.output, ref.output, "output " + what);
        expectMaskedExactlyZero(result.probs, ref.probs, what);

        Tensor observed({ 2, n, n });
        const std::function<void(int64_t, int64_t, int64_t, const float*)> observe
            = [&](int64_t head, int64_t row0, int64_t rows, const float* probs) {
                  std::copy_n(probs, rows * n, observed.data() + (head * n + row0) * n);
              };
        options.wantProbs = false;
        options.observeRows = &observe;
        const AttentionResult streamed = multiHeadAttention(q, k, v, options);
        EXPECT_EQ(observed.storage(), result.probs.storage()) << what;
        expectNear(streamed.output, ref.output, "output without probabilities " + what);
    }
}

TEST(AttentionCore, WideHeadsAndACallInsideAnObserverMatchTheReference)
{
    // Head dim 128 takes twice the tile rows (each head's 1,100 rows span three tiles). Without probabilities the
    // output is multiplied from the tile after the observer has seen its rows, and this observer makes an attention
    // call of its own on the same thread, which must not reuse (or move) that tile.
    const int64_t n = 1100, d = 128;
    const Tensor q = randomTensor({ 2, n, d }, 94, 0.2f), k = randomTensor({ 1, n, d }, 95, 0.2f);
    const Tensor v = randomTensor({ 1, n, 4 }, 96);
    AttentionOptions options;
    options.mask.causal = true;
    const Reference ref = referenceAttention(q, k, v, options);
    const AttentionResult result = multiHeadAttention(q, k, v, options);
    expectNear(result.probs, ref.probs, "probs d 128");
    expectNear(result.output, ref.output, "output d 128");

    const Tensor innerQ = randomTensor({ 2, 300, 16 }, 97), innerK = randomTensor({ 1, 300, 16 }, 98);
    const Tensor innerV = randomTensor({ 1, 300, 4 }, 99);
    AttentionOptions inner;
    inner.mask.causal = true;
    const Reference innerRef = referenceAttention(innerQ, innerK, innerV, inner);
    int calls = 0;
    const std::function<void(int64_t, int64_t, int64_t, const float*)> observe
        = [&](int64_t, int64_t, int64_t, const float*) {
              if (calls++ % 2) return;
              expectNear(multiHeadAttention(innerQ, innerK, innerV, inner).output, innerRef.output, "inner output");
          };
    options.wantProbs = false;
    options.observeRows = &observe;
    const AttentionResult streamed = multiHeadAttention(q, k, v, options);
    EXPECT_GT(calls, 2);
    expectNear(streamed.output, ref.output, "output around calls inside the observer");
}

TEST(AttentionCore, ExplicitScaleNonCausalWindowAndPadding) {
    const Tensor q = randomTensor({ 2, 7, 16 }, 11);
    const Tensor k = randomTensor({ 2, 9, 16 }, 12);
    const Tensor v = randomTensor({ 2, 9, 8 }, 13);
    AttentionOptions options;
    options.scale = 0.37f;
    options.mask.slidingWindow = 3;
    options.mask.queryOffset = 1;
    options.mask.keyKeep = { 1, 1, 0, 1, 1, 1, 0, 1, 1 };
    const AttentionResult result = multiHeadAttention(q, k, v, options);
    const Reference ref = referenceAttention(q, k, v, options);
    expectNear(result.probs, ref.probs, "probs");
    expectNear(result.output, ref.output, "output");
    expectMaskedExactlyZero(result.probs, ref.probs, "probs");
}

TEST(AttentionCore, KeepMaskAndBiasPerQueryAndPerHead) {
    const int64_t hq = 4, hkv = 2, nq = 7, nk = 11, d = 8;
    const Tensor q = randomTensor({ hq, nq, d }, 21);
    const Tensor k = randomTensor({ hkv, nk, d }, 22);
    const Tensor v = randomTensor({ hkv, nk, d }, 23);
    std::mt19937 rng(24);
    std::bernoulli_distribution keep(0.7);
    for (const Shape& shape : { Shape { nq, nk }, Shape { hq, nq, nk }, Shape { 1, nq, nk } }) {
        Tensor keepMask(shape);
        for (float& x : keepMask.storage())
            x = keep(rng) ? 1.0f : 0.0f;
        Tensor bias = randomTensor(shape, 25);
        for (float& x : bias.storage())
            if (!keep(rng)) x = -std::numeric_limits<float>::infinity();
        AttentionOptions options;
        options.mask.causal = true;
        options.mask.queryOffset = nk - nq;
        options.mask.keepMask = &keepMask;
        options.mask.bias = &bias;
        const AttentionResult result = multiHeadAttention(q, k, v, options);
        const Reference ref = referenceAttention(q, k, v, options);
        const std::string what = "shape " + shapeToString(shape);
        expectNear(result.probs, ref.probs, "probs " + what);
        expectNear(result.output, ref.output, "output " + what);
        expectMaskedExactlyZero(result.probs, ref.probs, what);
    }
}

TEST(AttentionCore, RowsSumToOneOrAreFullyMaskedZero) {
    const int64_t hq = 3, nq = 9, nk = 6, d = 16;
    const Tensor q = randomTensor({ hq, nq, d }, 31, 4.0f);
    const Tensor k = randomTensor({ 1, nk, d }, 32, 4.0f);
    const Tensor v = randomTensor({ 1, nk, 5 }, 33);
    AttentionOptions options;
    options.mask.causal = true;
    options.mask.slidingWindow = 3;
    options.mask.queryOffset = 1; // rows at positions 1..9: positions >= nk + 2 see no key at all
    options.mask.keyKeep = { 0, 1, 1, 1, 1, 1 };
    const AttentionResult result = multiHeadAttention(q, k, v, options);
    for (int64_t h = 0; h < hq; ++h)
        for (int64_t i = 0; i < nq; ++i) {
            double sum = 0.0;
            int visible = 0;
            for (int64_t j = 0; j < nk; ++j) {
                const float p = result.probs.at({ h, i, j });
                ASSERT_TRUE(std::isfinite(p));
                if (!refVisible(options.mask, i, j)) {
                    ASSERT_EQ(p, 0.0f) << "h=" << h << " i=" << i << " j=" << j;
                }
                visible += refVisible(options.mask, i, j);
                sum += p;
            }
            if (visible > 0) {
                EXPECT_NEAR(sum, 1.0, 1e-6) << "h=" << h << " i=" << i;
            } else {
                EXPECT_EQ(sum, 0.0) << "h=" << h << " i=" << i;
                for (int64_t c = 0; c < 5; ++c)
                    EXPECT_EQ(result.output.at({ h, i, c }), 0.0f);
            }
        }
    // Rows at positions 8 and 9 have a window 6..9 / 7..9 that lies past the last key.
    EXPECT_FALSE(refVisible(options.mask, 8, 5));
}

TEST(AttentionCore, FullyMaskedByBiasOrPaddingGivesZerosNotNaN) {
    const Tensor q = randomTensor({ 2, 3, 4 }, 41);
    const Tensor k = randomTensor({ 2, 5, 4 }, 42);
    const Tensor v = randomTensor({ 2, 5, 4 }, 43);
    Tensor bias({ 3, 5 });
    for (int64_t j = 0; j < 5; ++j)
        bias.at({ 1, j }) = -std::numeric_limits<float>::infinity();
    AttentionOptions options;
    options.mask.bias = &bias;
    AttentionResult result = multiHeadAttention(q, k, v, options);
    for (int64_t h = 0; h < 2; ++h)
        for (int64_t c = 0; c < 5; ++c) {
            EXPECT_EQ(result.probs.at({ h, 1, c }), 0.0f);
            EXPECT_TRUE(std::isfinite(result.probs.at({ h, 0, c })));
        }
    for (int64_t h = 0; h < 2; ++h)
        for (int64_t c = 0; c < 4; ++c)
            EXPECT_EQ(result.output.at({ h, 1, c }), 0.0f);

    AttentionOptions padded;
    padded.mask.keyKeep.assign(5, 0);
    result = multiHeadAttention(q, k, v, padded);
    for (float p : result.probs.storage())
        EXPECT_EQ(p, 0.0f);
    for (float o : result.output.storage())
        EXPECT_EQ(o, 0.0f);
}

void expectClose(const Tensor& a, const Tensor& b, const std::string& what) {
    ASSERT_EQ(a.shape(), b.shape()) << what;
    std::vector<double> ref(b.storage().begin(), b.storage().end());
    expectNear(a, ref, what);
}

TEST(AttentionCore, GroupedQueryEqualsRepeatedKeyValues) {
    for (const int64_t hkv : { 1, 2, 3 }) {
        const int64_t hq = 6, nq = 7, nk = 13, d = 16, dv = 8;
        const Tensor q = randomTensor({ hq, nq, d }, 51);
        const Tensor k = randomTensor({ hkv, nk, d }, 52);
        const Tensor v = randomTensor({ hkv, nk, dv }, 53);
        Tensor kRep({ hq, nk, d });
        Tensor vRep({ hq, nk, dv });
        for (int64_t h = 0; h < hq; ++h) {
            const int64_t src = h / (hq / hkv);
            std::copy_n(k.data() + src * nk * d, nk * d, kRep.data() + h * nk * d);
            std::copy_n(v.data() + src * nk * dv, nk * dv, vRep.data() + h * nk * dv);
        }
        AttentionOptions options;
        options.mask.causal = true;
        options.mask.queryOffset = nk - nq;
        const AttentionResult grouped = multiHeadAttention(q, k, v, options);
        const AttentionResult repeated = multiHeadAttention(q, kRep, vRep, options);
        // Equal up to float rounding: the grouped path multiplies all query heads of a kv head in one GEMM.
        expectClose(grouped.probs, repeated.probs, "probs hkv=" + std::to_string(hkv));
        expectClose(grouped.output, repeated.output, "output hkv=" + std::to_string(hkv));
        for (int64_t n = 0; n < grouped.probs.numel(); ++n)
            ASSERT_EQ(grouped.probs.data()[n] == 0.0f, repeated.probs.data()[n] == 0.0f) << n;
    }
}

/// A slice [t0, t1) of the rows of a [heads, t, cols] tensor, or of its first `cols` columns.
Tensor rowSlice(const Tensor& t, int64_t t0, int64_t t1, int64_t cols) {
    const int64_t heads = t.dim(0), full = t.dim(2);
    Tensor out({ heads, t1 - t0, cols });
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t r = t0; r < t1; ++r)
            std::copy_n(t.data() + (h * t.dim(1) + r) * full, cols, out.data() + (h * (t1 - t0) + r - t0) * cols);
    return out;
}

TEST(AttentionCore, KvCacheStepsEqualSlicesOfFullCausalPass) {
    const int64_t hq = 4, hkv = 2, total = 23, d = 16, dv = 16;
    const Tensor q = randomTensor({ hq, total, d }, 61);
    const Tensor k = randomTensor({ hkv, total, d }, 62);
    const Tensor v = randomTensor({ hkv, total, dv }, 63);
    for (const int64_t window : { 0, 4 }) {
        AttentionOptions options;
        options.mask.causal = true;
        options.mask.slidingWindow = window;
        const AttentionResult full = multiHeadAttention(q, k, v, options);
        // Prefill of 5 rows, then one row per step, then a chunk of 6.
        std::vector<std::pair<int64_t, int64_t>> steps { { 0, 5 } };
        for (int64_t t = 5; t < 17; ++t)
            steps.push_back({ t, t + 1 });
        steps.push_back({ 17, total });
        for (const auto& [t0, t1] : steps) {
            AttentionOptions step = options;
            step.mask.queryOffset = t0;
            const AttentionResult r
                = multiHeadAttention(rowSlice(q, t0, t1, d), rowSlice(k, 0, t1, d), rowSlice(v, 0, t1, dv), step);
            const std::string what
                = "window " + std::to_string(window) + " rows " + std::to_string(t0) + ".." + std::to_string(t1);
            expectClose(r.probs, rowSlice(full.probs, t0, t1, t1), "probs " + what);
            expectClose(r.output, rowSlice(full.output, t0, t1, dv), "output " + what);
            for (int64_t h = 0; h < hq; ++h)
                for (int64_t i = t0; i < t1; ++i)
                    for (int64_t j = t1; j < total; ++j)
                        ASSERT_EQ(full.probs.at({ h, i, j }), 0.0f);
        }
    }
}

TEST(AttentionCore, OutputWithoutProbabilitiesMatchesAndProbabilitiesAloneMatch) {
    // 20000 keys make the probability-free path work in row blocks that straddle the two query heads, so the
    // per-head bias must follow each row's head.
    const int64_t hq = 2, nq = 64, nk = 20000, d = 8;
    const Tensor q = randomTensor({ hq, nq, d }, 71);
    const Tensor k = randomTensor({ 1, nk, d }, 72);
    const Tensor v = randomTensor({ 1, nk, 3 }, 73);
    const Tensor bias = randomTensor({ hq, nq, nk }, 74);
    AttentionOptions options;
    options.mask.causal = true;
    options.mask.queryOffset = nk - nq;
    options.mask.slidingWindow = 7000;
    options.mask.bias = &bias;
    const AttentionResult withProbs = multiHeadAttention(q, k, v, options);
    expectNear(withProbs.output, referenceAttention(q, k, v, options).output, "output with probabilities");
    options.wantProbs = false;
    const AttentionResult without = multiHeadAttention(q, k, v, options);
    EXPECT_TRUE(without.probs.empty());
    expectClose(without.output, withProbs.output, "output without probabilities");
    EXPECT_EQ(attentionProbabilities(q, k, options).storage(), withProbs.probs.storage());
}

TEST(AttentionCore, EmptyKeysGiveZeroOutput) {
    const AttentionResult r
        = multiHeadAttention(randomTensor({ 2, 3, 4 }, 75), Tensor({ 1, 0, 4 }), Tensor({ 1, 0, 6 }), {});
    EXPECT_EQ(r.probs.shape(), (Shape { 2, 3, 0 }));
    ASSERT_EQ(r.output.shape(), (Shape { 2, 3, 6 }));
    for (float o : r.output.storage())
        EXPECT_EQ(o, 0.0f);
}

TEST(AttentionCore, SoftmaxRowsAndLogSumExp) {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> rows { 1000.0f, 999.0f, -inf, 998.0f, // large values: needs the max subtraction
        -inf, -inf, -inf, -inf, // fully masked
        -3.0f, 0.5f, 2.0f, -inf };
    const std::vector<float> input = rows;
    softmaxRowsInPlace(rows.data(), 3, 4);
    for (int r = 0; r < 3; ++r) {
        const float* in = input.data() + r * 4;
        double m = -kInf;
        for (int j = 0; j < 4; ++j)
            m = std::max(m, static_cast<double>(in[j]));
        double sum = 0.0;
        for (int j = 0; j < 4; ++j)
            sum += in[j] == -inf ? 0.0 : std::exp(in[j] - m);
        for (int j = 0; j < 4; ++j) {
            const float p = rows[static_cast<size_t>(r * 4 + j)];
            if (in[j] == -inf) {
                EXPECT_EQ(p, 0.0f) << r << "," << j;
            } else {
                EXPECT_NEAR(p, std::exp(in[j] - m) / sum, 1e-6 * std::exp(in[j] - m) / sum) << r << "," << j;
            }
        }
        const float lse = logSumExp(in, 4);
        if (m == -kInf)
            EXPECT_EQ(lse, -inf);
        else
            EXPECT_NEAR(lse, m + std::log(sum), 1e-6 * std::abs(m + std::log(sum)));
    }
}

TEST(AttentionCore, EightLaneSoftmaxMatchesDoublePrecisionAndStaysInsideItsRow) {
    // Every row length around the eight lanes, large and tiny terms; the floats past each row must stay as they were.
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.0f, 4.0f);
    for (int64_t n : { 1, 2, 7, 8, 9, 15, 16, 17, 127, 128, 129, 1000 }) {
        std::vector<float> row(static_cast<size_t>(n) + 3, 12345.0f);
        for (int64_t j = 0; j < n; ++j)
            row[static_cast<size_t>(j)] = j == 1 ? 900.0f : dist(rng) + (j == 2 ? 860.0f : 880.0f);
        const std::vector<float> input = row;
        if (!softmaxDenseAvx2(row.data(), n)) {
            // Only a CPU without AVX2 and FMA may decline, and then nothing is touched.
            EXPECT_FALSE(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
            EXPECT_EQ(row, input);
            continue;
        }
        double m = -kInf, sum = 0.0;
        for (int64_t j = 0; j < n; ++j)
            m = std::max(m, static_cast<double>(input[static_cast<size_t>(j)]));
        for (int64_t j = 0; j < n; ++j)
            sum += std::exp(input[static_cast<size_t>(j)] - m);
        for (int64_t j = 0; j < n; ++j) {
            const double want = std::exp(input[static_cast<size_t>(j)] - m) / sum;
            // x - m is exact here (both near 900); the exp's ulp or two and the sum's rounding stay far below 4e-6
            // relative. A term below 1e-37 may be flushed to 0.
            EXPECT_NEAR(row[static_cast<size_t>(j)], want, 4e-6 * want + 1e-37) << "n=" << n << " j=" << j;
        }
        for (size_t j = static_cast<size_t>(n); j < row.size(); ++j)
            EXPECT_EQ(row[j], 12345.0f) << "n=" << n << ": wrote past the row";
    }
}

TEST(AttentionCore, EightLaneExpIsWithinTwoUlpsOfStdExpOverASoftmaxsRange) {
    // The shifted exponent of expDenseAvx2 (the exp of every long causal or windowed row) against std::exp in double
    // over the arguments a max-subtracted softmax feeds it, [-87, 0], every 2^-12: Cephes' degree-6 polynomial with
    // the argument split in two parts is good to about an ulp; the bound is 2.5 float ulps (3e-7 relative). The sum it
    // returns adds n / 8 positive terms per lane in float, then the 8 lanes: within (n / 8 + 3) unit roundoffs of the
    // exact sum of its terms (recursive summation), plus their 3e-7. Below -87.3 a term is flushed to 0 (see exp8).
    const int64_t n = 87 * 4096 + 1;
    std::vector<float> row(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j)
        row[static_cast<size_t>(j)] = -static_cast<float>(j) / 4096.0f; // row[0] = 0 is the max: no shift
    const std::vector<float> input = row;
    float sum = 0.0f;
    if (!expDenseAvx2(row.data(), n, sum)) {
        EXPECT_FALSE(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
        return;
    }
    double worst = 0.0, want = 0.0;
    for (int64_t j = 0; j < n; ++j) {
        const double exact = std::exp(static_cast<double>(input[static_cast<size_t>(j)]));
        want += exact;
        worst = std::max(worst, std::abs(row[static_cast<size_t>(j)] - exact) / exact);
    }
    EXPECT_LE(worst, 3e-7);
    EXPECT_NEAR(sum, want, ((static_cast<double>(n) / 8 + 3) * 0x1p-24 + 3e-7) * want);
}

TEST(AttentionCore, SlidingWindowFollowsHuggingFaceMistral) {
    // transformers masking_utils.sliding_window_overlay: kv_idx > q_idx - sliding_window, on top of kv_idx <= q_idx.
    MaskSpec spec;
    spec.causal = true;
    spec.slidingWindow = 3;
    for (int64_t j = 0; j < 8; ++j)
        EXPECT_EQ(keyVisible(spec, 5, j), j >= 3 && j <= 5) << j;
    spec.queryOffset = 2; // row 3 is position 5
    for (int64_t j = 0; j < 8; ++j)
        EXPECT_EQ(keyVisible(spec, 3, j), j >= 3 && j <= 5) << j;
    spec.causal = false; // |p - j| < w
    for (int64_t j = 0; j < 9; ++j)
        EXPECT_EQ(keyVisible(spec, 3, j), j >= 3 && j <= 7) << j;
}

TEST(AttentionCore, AdditiveMaskAgreesWithKeyVisible) {
    const float inf = std::numeric_limits<float>::infinity();
    for (const bool causal : { false, true })
        for (const int64_t window : { 0, 1, 4 })
            for (const int64_t offset : { 0, 3 }) {
                MaskSpec spec;
                spec.causal = causal;
                spec.slidingWindow = window;
                spec.queryOffset = offset;
                spec.keyKeep = { 1, 0, 1, 1, 1, 1, 0, 1, 1, 1 };
                const Tensor mask = additiveMask(spec, 7, 10);
                ASSERT_EQ(mask.shape(), (Shape { 7, 10 }));
                for (int64_t i = 0; i < 7; ++i)
                    for (int64_t j = 0; j < 10; ++j) {
                        const bool visible = refVisible(spec, i, j);
                        EXPECT_EQ(keyVisible(spec, i, j), visible) << i << "," << j;
                        EXPECT_EQ(mask.at({ i, j }), visible ? 0.0f : -inf) << i << "," << j;
                    }
            }
}

std::string errorOf(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options = {}) {
    try {
        multiHeadAttention(q, k, v, options);
    } catch (const Error& e) {
        return e.what();
    }
    return "<no error>";
}

TEST(AttentionCore, BadShapesThrow) {
    const Tensor q({ 4, 3, 8 });
    const Tensor k({ 2, 5, 8 });
    const Tensor v({ 2, 5, 6 });
    EXPECT_EQ(errorOf(q, k, v), "<no error>");
    EXPECT_NE(errorOf(Tensor({ 3, 8 }), k, v).find("[heads, t, d]"), std::string::npos);
    EXPECT_NE(errorOf(q, Tensor({ 2, 5, 7 }), v).find("head dims"), std::string::npos);
    EXPECT_NE(errorOf(Tensor({ 3, 3, 8 }), k, v).find("cannot share"), std::string::npos);
    EXPECT_NE(errorOf(q, k, Tensor({ 2, 4, 6 })).find("does not match k"), std::string::npos);
    EXPECT_NE(errorOf(q, k, Tensor({ 1, 5, 6 })).find("does not match k"), std::string::npos);
    AttentionOptions options;
    options.mask.keyKeep = { 1, 1, 1 };
    EXPECT_NE(errorOf(q, k, v, options).find("keyKeep"), std::string::npos);
    options = {};
    const Tensor bias({ 3, 4 });
    options.mask.bias = &bias;
    EXPECT_NE(errorOf(q, k, v, options).find("bias"), std::string::npos);
    options = {};
    const Tensor keep({ 2, 3, 5 });
    options.mask.keepMask = &keep;
    EXPECT_NE(errorOf(q, k, v, options).find("keepMask"), std::string::npos);
    options = {};
    options.mask.slidingWindow = -1;
    EXPECT_NE(errorOf(q, k, v, options).find("slidingWindow"), std::string::npos);
    options = {};
    options.mask.queryOffset = -2;
    EXPECT_NE(errorOf(q, k, v, options).find("queryOffset"), std::string::npos);
    EXPECT_THROW(attentionProbabilities(q, Tensor({ 3, 5, 8 }), {}), Error);
    MaskSpec spec;
    spec.keyKeep = { 1, 1 };
    EXPECT_THROW(additiveMask(spec, 2, 3), Error);
    EXPECT_THROW(keyVisible(spec, 0, 2), Error);
}

} // namespace
} // namespace attn
