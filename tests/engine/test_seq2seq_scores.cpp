// SPDX-License-Identifier: MIT
// Bahdanau and Luong scores against double-precision nested loops written from the papers' formulas.
#include "attention/attention.h"
#include "attention/seq2seq_scores.h"
#include "core/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace attn {
namespace {

Tensor randomTensor(Shape shape, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, 0.5f);
    Tensor t(std::move(shape));
    for (float& x : t.storage())
        x = dist(rng);
    return t;
}

void expectNear(const Tensor& actual, const std::vector<double>& ref, const std::string& what) {
    ASSERT_EQ(actual.numel(), static_cast<int64_t>(ref.size())) << what;
    double scale = 0.0, worst = 0.0;
    for (size_t n = 0; n < ref.size(); ++n) {
        scale = std::max(scale, std::abs(ref[n]));
        worst = std::max(worst, std::abs(actual.data()[n] - ref[n]));
    }
    EXPECT_LE(worst, 1e-6 * scale) << what;
}

struct Sizes {
    int64_t t, s, ds, dh, da;
};

const std::vector<Sizes> kSizes { { 1, 1, 1, 1, 1 }, { 3, 7, 8, 16, 8 }, { 7, 129, 16, 8, 16 }, { 2, 64, 80, 80, 3 } };

std::string describe(const Sizes& z) {
    return "T=" + std::to_string(z.t) + " S=" + std::to_string(z.s) + " ds=" + std::to_string(z.ds)
        + " dh=" + std::to_string(z.dh) + " da=" + std::to_string(z.da);
}

double dot(const Tensor& a, int64_t i, const Tensor& b, int64_t j) {
    double sum = 0.0;
    for (int64_t c = 0; c < a.dim(1); ++c)
        sum += static_cast<double>(a.at({ i, c })) * b.at({ j, c });
    return sum;
}

TEST(Seq2SeqScores, BahdanauAdditive) {
    uint32_t seed = 1;
    for (const Sizes& z : kSizes) {
        const Tensor s = randomTensor({ z.t, z.ds }, seed++), h = randomTensor({ z.s, z.dh }, seed++);
        const Tensor w1 = randomTensor({ z.da, z.ds }, seed++), w2 = randomTensor({ z.da, z.dh }, seed++);
        const Tensor v = randomTensor({ z.da }, seed++);
        std::vector<double> ref;
        for (int64_t t = 0; t < z.t; ++t)
            for (int64_t j = 0; j < z.s; ++j) {
                double score = 0.0;
                for (int64_t a = 0; a < z.da; ++a)
                    score += v.at({ a }) * std::tanh(dot(w1, a, s, t) + dot(w2, a, h, j));
                ref.push_back(score);
            }
        const Tensor scores = bahdanauScores(s, h, w1, w2, v);
        ASSERT_EQ(scores.shape(), (Shape { z.t, z.s }));
        expectNear(scores, ref, describe(z));
        // v given as an nn.Linear(da, 1) weight gives the same scores.
        EXPECT_EQ(bahdanauScores(s, h, w1, w2, v.reshaped({ 1, z.da })).storage(), scores.storage());
    }
}

TEST(Seq2SeqScores, LuongDotAndGeneral) {
    uint32_t seed = 100;
    for (const Sizes& z : kSizes) {
        const Tensor s = randomTensor({ z.t, z.ds }, seed++), hSame = randomTensor({ z.s, z.ds }, seed++);
        const Tensor h = randomTensor({ z.s, z.dh }, seed++), w = randomTensor({ z.ds, z.dh }, seed++);
        std::vector<double> refDot, refGeneral;
        for (int64_t t = 0; t < z.t; ++t)
            for (int64_t j = 0; j < z.s; ++j) {
                refDot.push_back(dot(s, t, hSame, j));
                double g = 0.0; // s_t^T W h_j
                for (int64_t a = 0; a < z.ds; ++a)
                    for (int64_t b = 0; b < z.dh; ++b)
                        g += static_cast<double>(s.at({ t, a })) * w.at({ a, b }) * h.at({ j, b });
                refGeneral.push_back(g);
            }
        expectNear(luongDotScores(s, hSame), refDot, "dot " + describe(z));
        expectNear(luongGeneralScores(s, h, w), refGeneral, "general " + describe(z));
    }
}

TEST(Seq2SeqScores, LuongConcat) {
    uint32_t seed = 200;
    for (const Sizes& z : kSizes) {
        const Tensor s = randomTensor({ z.t, z.ds }, seed++), h = randomTensor({ z.s, z.dh }, seed++);
        const Tensor w = randomTensor({ z.da, z.ds + z.dh }, seed++), v = randomTensor({ z.da }, seed++);
        std::vector<double> ref;
        for (int64_t t = 0; t < z.t; ++t)
            for (int64_t j = 0; j < z.s; ++j) {
                double score = 0.0;
                for (int64_t a = 0; a < z.da; ++a) {
                    double pre = 0.0; // W [s_t; h_j]
                    for (int64_t c = 0; c < z.ds; ++c)
                        pre += static_cast<double>(w.at({ a, c })) * s.at({ t, c });
                    for (int64_t c = 0; c < z.dh; ++c)
                        pre += static_cast<double>(w.at({ a, z.ds + c })) * h.at({ j, c });
                    score += v.at({ a }) * std::tanh(pre);
                }
                ref.push_back(score);
            }
        expectNear(luongConcatScores(s, h, w, v), ref, describe(z));
    }
}

TEST(Seq2SeqScores, SoftmaxTurnsScoresIntoAlignments) {
    const Tensor s = randomTensor({ 3, 8 }, 300), h = randomTensor({ 5, 8 }, 301);
    Tensor scores = luongDotScores(s, h);
    softmaxRowsInPlace(scores.data(), 3, 5);
    for (int64_t t = 0; t < 3; ++t) {
        double sum = 0.0;
        for (int64_t j = 0; j < 5; ++j)
            sum += scores.at({ t, j });
        EXPECT_NEAR(sum, 1.0, 1e-6);
    }
}

TEST(Seq2SeqScores, BadShapesThrow) {
    const Tensor s({ 3, 4 }), h({ 5, 6 }), w1({ 2, 4 }), w2({ 2, 6 }), v({ 2 });
    EXPECT_NO_THROW(bahdanauScores(s, h, w1, w2, v));
    EXPECT_THROW(bahdanauScores(Tensor({ 4 }), h, w1, w2, v), Error);
    EXPECT_THROW(bahdanauScores(s, h, Tensor({ 2, 5 }), w2, v), Error);
    EXPECT_THROW(bahdanauScores(s, h, w1, Tensor({ 3, 6 }), v), Error);
    EXPECT_THROW(bahdanauScores(s, h, w1, w2, Tensor({ 3 })), Error);
    EXPECT_THROW(bahdanauScores(s, h, w1, w2, Tensor({ 2, 1 })), Error);
    EXPECT_THROW(luongDotScores(s, h), Error);
    EXPECT_THROW(luongGeneralScores(s, h, Tensor({ 6, 4 })), Error);
    EXPECT_THROW(luongConcatScores(s, h, Tensor({ 2, 9 }), v), Error);
    EXPECT_THROW(luongConcatScores(s, h, Tensor({ 2, 10 }), Tensor({ 3 })), Error);
}

} // namespace
} // namespace attn
