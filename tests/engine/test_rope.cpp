// SPDX-License-Identifier: MIT
// RoPE in both conventions and the sinusoidal position tables, against transcriptions of the reference code
// (HF Llama rotate_half, llama2.c run.c, HF Marian _init_weight, Whisper sinusoids) and Whisper's stored table.
#include "attention/rope.h"
#include "core/error.h"
#include "io/safetensors.h"
#include "support/shared_data.h"

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
    std::normal_distribution<float> dist(0.0f, 1.0f);
    Tensor t(std::move(shape));
    for (float& x : t.storage())
        x = dist(rng);
    return t;
}

/// Within 1e-6 of the reference, relative to the reference's largest magnitude.
void expectNear(const Tensor& actual, const std::vector<double>& ref, const std::string& what, double tol = 1e-6) {
    ASSERT_EQ(actual.numel(), static_cast<int64_t>(ref.size())) << what;
    double scale = 0.0, worst = 0.0;
    for (size_t n = 0; n < ref.size(); ++n) {
        scale = std::max(scale, std::abs(ref[n]));
        worst = std::max(worst, std::abs(actual.data()[n] - ref[n]));
    }
    EXPECT_LE(worst, tol * scale) << what;
}

/// HF LlamaRotaryEmbedding + apply_rotary_pos_emb, in double except where HF itself is float32:
/// inv_freq = 1.0 / (base ** (arange(0, dim, 2).float() / dim)) and freqs = inv_freq @ position_ids.float().
std::vector<double> referenceRotateHalf(const Tensor& x, int64_t offset, double theta, int64_t rot) {
    const int64_t heads = x.dim(0), t = x.dim(1), d = x.dim(2), half = rot / 2;
    std::vector<double> out(x.storage().begin(), x.storage().end());
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t r = 0; r < t; ++r)
            for (int64_t i = 0; i < half; ++i) {
                const float invFreq
                    = 1.0f / std::pow(static_cast<float>(theta), static_cast<float>(2 * i) / static_cast<float>(rot));
                const double angle = static_cast<float>(offset + r) * invFreq;
                const double x1 = x.at({ h, r, i }), x2 = x.at({ h, r, i + half });
                // q * cos + rotate_half(q) * sin, rotate_half(q) = [-q2, q1]
                out[static_cast<size_t>((h * t + r) * d + i)] = x1 * std::cos(angle) - x2 * std::sin(angle);
                out[static_cast<size_t>((h * t + r) * d + i + half)] = x2 * std::cos(angle) + x1 * std::sin(angle);
            }
    return out;
}

/// llama2.c run.c: for i in 0..dim step 2: head_dim = i % head_size; freq = 1.0f / powf(10000.0f, head_dim /
/// (float)head_size); val = pos * freq; (v0, v1) = (vec[i], vec[i+1]) rotated by val. Here generalised to theta and
/// partial rotary (GPT-J rotary_dim) with head_size -> rot.
std::vector<double> referenceInterleaved(const Tensor& x, int64_t offset, double theta, int64_t rot) {
    const int64_t heads = x.dim(0), t = x.dim(1), d = x.dim(2);
    std::vector<double> out(x.storage().begin(), x.storage().end());
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t r = 0; r < t; ++r)
            for (int64_t i = 0; i < rot; i += 2) {
                const float freq
                    = 1.0f / std::pow(static_cast<float>(theta), static_cast<float>(i) / static_cast<float>(rot));
                const double val = static_cast<float>(offset + r) * freq;
                const double v0 = x.at({ h, r, i }), v1 = x.at({ h, r, i + 1 });
                out[static_cast<size_t>((h * t + r) * d + i)] = v0 * std::cos(val) - v1 * std::sin(val);
                out[static_cast<size_t>((h * t + r) * d + i + 1)] = v0 * std::sin(val) + v1 * std::cos(val);
            }
    return out;
}

struct RopeCase {
    int64_t heads, t, d, rot, offset;
    double theta;
};

const std::vector<RopeCase> kCases {
    { 1, 1, 8, 8, 0, 10000.0 },
    { 3, 7, 16, 16, 5, 10000.0 },
    { 2, 129, 80, 80, 1000, 10000.0 },
    { 2, 7, 80, 20, 3, 10000.0 }, // partial rotary factor 0.25
    { 4, 3, 16, 8, 4090, 500000.0 },
    { 1, 64, 2, 2, 17, 1000000.0 },
};

std::string describe(const RopeCase& c) {
    return "heads=" + std::to_string(c.heads) + " t=" + std::to_string(c.t) + " d=" + std::to_string(c.d)
        + " rot=" + std::to_string(c.rot) + " offset=" + std::to_string(c.offset) + " theta=" + std::to_string(c.theta);
}

TEST(Rope, RotateHalfMatchesHuggingFaceLlama) {
    uint32_t seed = 1;
    for (const RopeCase& c : kCases) {
        const Tensor x = randomTensor({ c.heads, c.t, c.d }, seed++);
        Tensor y = x;
        applyRope(y, c.offset, RopeStyle::RotateHalf, c.theta, c.rot);
        expectNear(y, referenceRotateHalf(x, c.offset, c.theta, c.rot), describe(c));
    }
}

TEST(Rope, InterleavedMatchesLlama2c) {
    uint32_t seed = 100;
    for (const RopeCase& c : kCases) {
        const Tensor x = randomTensor({ c.heads, c.t, c.d }, seed++);
        Tensor y = x;
        applyRope(y, c.offset, RopeStyle::Interleaved, c.theta, c.rot);
        expectNear(y, referenceInterleaved(x, c.offset, c.theta, c.rot), describe(c));
    }
}

TEST(Rope, CloseToExactMathAtSmallPositions) {
    // The float32 angle is a convention of the reference code; at positions < 64 it stays within ~4e-6 rad of the
    // exact angle, so both are close to rotation by pos * theta^(-2i/rot) computed entirely in double.
    const Tensor x = randomTensor({ 2, 64, 16 }, 7);
    Tensor y = x;
    applyRope(y, 0, RopeStyle::RotateHalf, 10000.0, 16);
    std::vector<double> exact(x.storage().begin(), x.storage().end());
    for (int64_t h = 0; h < 2; ++h)
        for (int64_t r = 0; r < 64; ++r)
            for (int64_t i = 0; i < 8; ++i) {
                const double angle = r * std::pow(10000.0, -2.0 * i / 16.0);
                const double x1 = x.at({ h, r, i }), x2 = x.at({ h, r, i + 8 });
                exact[static_cast<size_t>((h * 64 + r) * 16 + i)] = x1 * std::cos(angle) - x2 * std::sin(angle);
                exact[static_cast<size_t>((h * 64 + r) * 16 + i + 8)] = x2 * std::cos(angle) + x1 * std::sin(angle);
            }
    expectNear(y, exact, "double angles", 1e-5);
}

TEST(Rope, PartialRotaryLeavesTailUntouchedAndOffsetEqualsSlice) {
    for (const RopeStyle style : { RopeStyle::RotateHalf, RopeStyle::Interleaved }) {
        const int64_t heads = 3, t = 11, d = 16, rot = 6;
        const Tensor x = randomTensor({ heads, t, d }, 9);
        Tensor full = x;
        applyRope(full, 0, style, 10000.0, rot);
        for (int64_t h = 0; h < heads; ++h)
            for (int64_t r = 0; r < t; ++r)
                for (int64_t c = rot; c < d; ++c)
                    ASSERT_EQ(full.at({ h, r, c }), x.at({ h, r, c }));
        // Rows 4..10 rotated alone with positionOffset 4 equal the same rows of the full pass.
        Tensor tail({ heads, t - 4, d });
        for (int64_t h = 0; h < heads; ++h)
            std::copy_n(x.data() + (h * t + 4) * d, (t - 4) * d, tail.data() + h * (t - 4) * d);
        applyRope(tail, 4, style, 10000.0, rot);
        for (int64_t h = 0; h < heads; ++h)
            for (int64_t r = 4; r < t; ++r)
                for (int64_t c = 0; c < d; ++c)
                    ASSERT_EQ(tail.at({ h, r - 4, c }), full.at({ h, r, c }));
    }
}

TEST(Rope, NoneIsIdentityAndBadArgumentsThrow) {
    const Tensor x = randomTensor({ 2, 3, 8 }, 3);
    Tensor y = x;
    applyRope(y, 0, RopeStyle::None, 10000.0, 8);
    EXPECT_EQ(y.storage(), x.storage());
    EXPECT_THROW(applyRope(y, 0, RopeStyle::RotateHalf, 10000.0, 7), Error);
    EXPECT_THROW(applyRope(y, 0, RopeStyle::RotateHalf, 10000.0, 10), Error);
    EXPECT_THROW(applyRope(y, 0, RopeStyle::RotateHalf, 10000.0, 0), Error);
    EXPECT_THROW(applyRope(y, 0, RopeStyle::Interleaved, 0.0, 8), Error);
    EXPECT_THROW(applyRope(y, -1, RopeStyle::Interleaved, 10000.0, 8), Error);
    Tensor flat({ 3, 8 });
    EXPECT_THROW(applyRope(flat, 0, RopeStyle::RotateHalf, 10000.0, 8), Error);
    Tensor one({ 1, 2, 1 }); // head dim 1 cannot rotate
    EXPECT_THROW(applyRope(one, 0, RopeStyle::RotateHalf, 10000.0, 1), Error);
}

TEST(Sinusoids, WhisperLayoutMatchesStoredEncoderPositions) {
    const auto store = SafetensorsStore::open(test::sharedPath("fixtures/hf-tiny/whisper/model.safetensors"));
    const Tensor stored = store->load("model.encoder.embed_positions.weight");
    ASSERT_EQ(stored.rank(), 2);
    const Tensor table = sinusoidalPositions(stored.dim(0), stored.dim(1), SinusoidLayout::WhisperHalfSplit);
    ASSERT_EQ(table.shape(), stored.shape());
    double worst = 0.0;
    for (int64_t n = 0; n < stored.numel(); ++n)
        worst = std::max(worst, static_cast<double>(std::abs(table.data()[n] - stored.data()[n])));
    EXPECT_LE(worst, 1e-6);
}

TEST(Sinusoids, MarianLayoutMatchesInitWeight) {
    // position_enc[pos][j] = pos / 10000^(2 * (j // 2) / dim); out[:, :sentinel] = sin(position_enc[:, 0::2]);
    // out[:, sentinel:] = cos(position_enc[:, 1::2]); sentinel = ceil(dim / 2).
    for (const int64_t dim : { 1, 7, 8, 32 }) {
        const int64_t n = 40;
        std::vector<double> ref(static_cast<size_t>(n * dim));
        const int64_t sentinel = dim % 2 == 0 ? dim / 2 : dim / 2 + 1;
        for (int64_t pos = 0; pos < n; ++pos) {
            std::vector<double> enc(static_cast<size_t>(dim));
            for (int64_t j = 0; j < dim; ++j)
                enc[static_cast<size_t>(j)] = pos / std::pow(10000.0, 2.0 * static_cast<double>(j / 2) / dim);
            int64_t col = 0;
            for (int64_t j = 0; j < dim; j += 2)
                ref[static_cast<size_t>(pos * dim + col++)] = std::sin(enc[static_cast<size_t>(j)]);
            ASSERT_EQ(col, sentinel);
            for (int64_t j = 1; j < dim; j += 2)
                ref[static_cast<size_t>(pos * dim + col++)] = std::cos(enc[static_cast<size_t>(j)]);
        }
        expectNear(sinusoidalPositions(n, dim, SinusoidLayout::MarianHalfSplit), ref, "dim " + std::to_string(dim));
    }
}

TEST(Sinusoids, InterleavedLayoutAndTheTwoHalfSplitsDiffer) {
    const int64_t n = 20, dim = 10;
    std::vector<double> ref(static_cast<size_t>(n * dim));
    for (int64_t pos = 0; pos < n; ++pos)
        for (int64_t j = 0; j < dim; ++j) {
            const double angle = pos / std::pow(10000.0, 2.0 * static_cast<double>(j / 2) / dim);
            ref[static_cast<size_t>(pos * dim + j)] = j % 2 == 0 ? std::sin(angle) : std::cos(angle);
        }
    expectNear(sinusoidalPositions(n, dim, SinusoidLayout::Interleaved), ref, "interleaved");

    // Marian's frequency 1 is 10000^(-2/32); Whisper's is exp(-ln(10000)/15): visibly different tables.
    const Tensor marian = sinusoidalPositions(8, 32, SinusoidLayout::MarianHalfSplit);
    const Tensor whisper = sinusoidalPositions(8, 32, SinusoidLayout::WhisperHalfSplit);
    EXPECT_NEAR(marian.at({ 5, 1 }), std::sin(5 * std::pow(10000.0, -2.0 / 32)), 1e-6);
    EXPECT_NEAR(whisper.at({ 5, 1 }), std::sin(5 * std::exp(-std::log(10000.0) / 15)), 1e-6);
    EXPECT_GT(std::abs(marian.at({ 5, 1 }) - whisper.at({ 5, 1 })), 0.05);

    EXPECT_THROW(sinusoidalPositions(4, 7, SinusoidLayout::WhisperHalfSplit), Error);
    EXPECT_THROW(sinusoidalPositions(4, 2, SinusoidLayout::WhisperHalfSplit), Error);
    EXPECT_THROW(sinusoidalPositions(4, 0, SinusoidLayout::MarianHalfSplit), Error);
}

} // namespace
} // namespace attn
