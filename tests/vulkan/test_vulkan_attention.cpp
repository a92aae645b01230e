// SPDX-License-Identifier: MIT
// Attention kernels (probabilities, fused output, probability tile) against the CPU core: max abs error <= 1e-5.
#include "vulkan_test_support.h"

#include "backend/cpu_backend.h"
#include "core/error.h"

#include <cmath>
#include <functional>
#include <limits>
#include <random>

namespace attn::test {
namespace {

struct Case {
    int64_t hq, hkv, nq, nk, d, dv;
};

std::string describe(const Case& c, const std::string& mask)
{
    return "hq/hkv " + std::to_string(c.hq) + "/" + std::to_string(c.hkv) + " q " + std::to_string(c.nq) + " k "
        + std::to_string(c.nk) + " d " + std::to_string(c.d) + " dv " + std::to_string(c.dv) + " mask " + mask;
}

class VulkanAttention : public VulkanTest {
protected:
    /// Probabilities, output without probabilities and output with probabilities, each against the CPU core.
    void expectParity(const Case& c, const AttentionOptions& options, const std::string& mask, bool withProbsCall = true)
    {
        SCOPED_TRACE(describe(c, mask));
        const uint32_t seed = static_cast<uint32_t>(c.hq * 131 + c.nq * 7 + c.nk * 3 + c.d);
        const Tensor q = randomTensor({ c.hq, c.nq, c.d }, seed);
        const Tensor k = randomTensor({ c.hkv, c.nk, c.d }, seed + 1);
        const Tensor v = randomTensor({ c.hkv, c.nk, c.dv }, seed + 2);
        AttentionOptions withProbs = options;
        withProbs.wantProbs = true;
        const AttentionResult ref = m_cpu.attention(q, k, v, withProbs);

        EXPECT_LE(maxAbsDiff(vk().attentionProbabilities(q, k, options), ref.probs), kParityTolerance);
        AttentionOptions noProbs = options;
        noProbs.wantProbs = false;
        const AttentionResult fused = vk().attention(q, k, v, noProbs);
        EXPECT_TRUE(fused.probs.empty());
        EXPECT_LE(maxAbsDiff(fused.output, ref.output), kParityTolerance);
        if (withProbsCall) {
            const AttentionResult both = vk().attention(q, k, v, withProbs);
            EXPECT_LE(maxAbsDiff(both.probs, ref.probs), kParityTolerance);
            EXPECT_LE(maxAbsDiff(both.output, ref.output), kParityTolerance);
        }
    }

    CpuBackend m_cpu;
};

TEST_F(VulkanAttention, SweepLengthsAndHeadDimsCausal)
{
    for (int64_t len : { 1, 7, 64, 129, 1000 })
        for (int64_t d : { 16, 64, 80, 128 }) {
            AttentionOptions o;
            o.mask.causal = true;
            // The longest case uses fewer heads to keep the suite short on a software device.
            const int64_t hq = len == 1000 ? 2 : 8;
            expectParity({ hq, hq / 2, len, len, d, d }, o, "causal", len != 1000);
        }
}

TEST_F(VulkanAttention, SweepLengthsWithKvCacheOffset)
{
    // A chunk of new queries after cached keys: queries sit at the end of the key range.
    for (int64_t nq : { 1, 7, 64 })
        for (int64_t nk : { 129, 1000 }) {
            AttentionOptions o;
            o.mask.causal = true;
            o.mask.queryOffset = nk - nq;
            expectParity({ 8, 2, nq, nk, 64, 64 }, o, "causal+offset", false);
        }
}

/// Decode steps at long context split the keys across workgroups (flash-decoding) and join the partials: splits with
/// no visible key (a sliding window, padded keys, a -inf bias row) must drop out of the join, not poison it.
TEST_F(VulkanAttention, LongKeyRangesSplitAcrossWorkgroups)
{
    const int64_t nk = 4096;
    AttentionOptions causal;
    causal.mask.causal = true;
    causal.mask.queryOffset = nk - 1;
    expectParity({ 8, 2, 1, nk, 64, 64 }, causal, "decode step");
    AttentionOptions twoRows = causal;
    twoRows.mask.queryOffset = nk - 2;
    expectParity({ 8, 1, 2, nk, 128, 128 }, twoRows, "two new rows, MQA");

    AttentionOptions window = causal;
    window.mask.slidingWindow = 100; // only the last split sees anything
    expectParity({ 8, 2, 1, nk, 64, 64 }, window, "window 100");

    AttentionOptions padded;
    padded.mask.keyKeep.assign(nk, 1);
    std::fill_n(padded.mask.keyKeep.begin(), 1500, 0); // the first splits are all padding
    expectParity({ 4, 4, 1, nk, 80, 80 }, padded, "leading padding");

    // Scores near -300 in the visible splits: a join that let an empty split's max (0) in would underflow to zeros.
    Tensor low({ 1, nk });
    std::fill_n(low.data(), nk, -300.0f);
    std::fill_n(low.data(), 2000, -std::numeric_limits<float>::infinity());
    AttentionOptions lowScores;
    lowScores.mask.bias = &low;
    expectParity({ 4, 2, 1, nk, 16, 16 }, lowScores, "scores near -300 after masked splits");

    Tensor none({ 1, nk });
    std::fill_n(none.data(), nk, -std::numeric_limits<float>::infinity()); // no visible key at all: zeros
    AttentionOptions masked;
    masked.mask.bias = &none;
    expectParity({ 4, 2, 1, nk, 16, 16 }, masked, "all -inf");
}

/// Every mask kind of the CPU core, for one GQA layout.
void sweepMasks(int64_t hq, int64_t hkv,
    const std::function<void(const Case&, const AttentionOptions&, const std::string&)>& check)
{
    const int64_t nq = 64, nk = 129, d = 64;
    const Case c { hq, hkv, nq, nk, d, 80 };
    std::mt19937 rng(hq * 10 + hkv);
    std::bernoulli_distribution coin(0.7);
    const float negInf = -std::numeric_limits<float>::infinity();

    Tensor keepShared({ nq, nk });
    for (auto& x : keepShared.storage())
        x = coin(rng) ? 1.0f : 0.0f;
    std::fill_n(keepShared.data() + 5 * nk, nk, 0.0f); // row 5 sees nothing: all-zero probabilities and output
    Tensor keepPerHead({ hq, nq, nk });
    for (auto& x : keepPerHead.storage())
        x = coin(rng) ? 2.0f : 0.0f; // any nonzero keeps
    Tensor biasShared = randomTensor({ nq, nk }, 77, 2.0f);
    for (int64_t i = 0; i < biasShared.numel(); i += 3)
        biasShared.data()[i] = negInf;
    std::fill_n(biasShared.data() + 9 * nk, nk, negInf); // a fully -inf row
    Tensor alibi({ hq, nq, nk }); // ALiBi-like per-head linear bias
    for (int64_t h = 0; h < hq; ++h)
        for (int64_t i = 0; i < nq; ++i)
            for (int64_t j = 0; j < nk; ++j)
                alibi.at({ h, i, j }) = -std::pow(2.0f, -8.0f * (h + 1) / hq) * std::abs(float(i + 65 - j));
    Tensor biasOne({ 1, nq, nk });
    biasOne.storage() = biasShared.storage();
    std::vector<uint8_t> padding(nk, 1);
    for (int64_t j : { 0, 1, 2, 50, 128 })
        padding[j] = 0;

    AttentionOptions o;
    check(c, o, "none");
    o.scale = 0.3f;
    check(c, o, "none, scale 0.3");
    o = {};
    o.mask.causal = true;
    o.mask.queryOffset = nk - nq;
    check(c, o, "causal + kv offset");
    o.mask.slidingWindow = 16;
    check(c, o, "causal + window 16 + kv offset");
    o = {};
    o.mask.slidingWindow = 10;
    o.mask.queryOffset = 30;
    check(c, o, "bidirectional window 10, offset 30");
    o = {};
    o.mask.keyKeep = padding;
    check(c, o, "padding");
    o.mask.causal = true;
    check(c, o, "padding + causal (fully masked first rows)");
    o = {};
    o.mask.keepMask = &keepShared;
    check(c, o, "keep [q, k] with an empty row");
    o.mask.keepMask = &keepPerHead;
    check(c, o, "keep [heads, q, k]");
    o = {};
    o.mask.bias = &biasShared;
    check(c, o, "bias [q, k] with -inf");
    o.mask.bias = &biasOne;
    check(c, o, "bias [1, q, k] with -inf");
    o.mask.bias = &alibi;
    o.mask.causal = true;
    o.mask.queryOffset = nk - nq;
    check(c, o, "alibi [heads, q, k] + causal + offset");
    o.mask.keyKeep = padding;
    o.mask.keepMask = &keepShared;
    o.mask.slidingWindow = 40;
    check(c, o, "everything");
}

TEST_F(VulkanAttention, EveryMaskKindAndGqaLayout)
{
    for (auto [hq, hkv] : { std::pair<int64_t, int64_t> { 8, 8 }, { 8, 2 }, { 8, 1 } })
        sweepMasks(hq, hkv, [&](const Case& c, const AttentionOptions& o, const std::string& m) {
            expectParity(c, o, m);
        });
}

TEST_F(VulkanAttention, FullyMaskedRowIsExactlyZero)
{
    const Tensor q = randomTensor({ 2, 3, 16 }, 1), k = randomTensor({ 1, 5, 16 }, 2), v = randomTensor({ 1, 5, 16 }, 3);
    AttentionOptions o;
    o.mask.keyKeep.assign(5, 0);
    const AttentionResult r = vk().attention(q, k, v, o);
    for (float x : r.probs.storage())
        EXPECT_EQ(x, 0.0f);
    for (float x : r.output.storage())
        EXPECT_EQ(x, 0.0f);
}

TEST_F(VulkanAttention, ProbabilityTiles)
{
    const Tensor q = randomTensor({ 8, 129, 64 }, 11), k = randomTensor({ 2, 129, 64 }, 12);
    Tensor bias = randomTensor({ 8, 129, 129 }, 13);
    for (const bool withMasks : { false, true }) {
        AttentionOptions o;
        if (withMasks) {
            o.mask.causal = true;
            o.mask.slidingWindow = 50;
            o.mask.bias = &bias;
            o.mask.keyKeep.assign(129, 1);
            o.mask.keyKeep[3] = 0;
        }
        const Tensor full = m_cpu.attentionProbabilities(q, k, o);
        for (const TileRange r : { TileRange { 0, 0, 129, 0, 129 }, TileRange { 5, 3, 70, 10, 100 },
                 TileRange { 7, 128, 129, 0, 129 }, TileRange { 2, 64, 65, 64, 65 }, TileRange { 1, 0, 7, 120, 129 } }) {
            SCOPED_TRACE("head " + std::to_string(r.head) + " rows " + std::to_string(r.q0) + ".." + std::to_string(r.q1)
                + " cols " + std::to_string(r.k0) + ".." + std::to_string(r.k1) + (withMasks ? " masked" : ""));
            Tensor expected({ r.q1 - r.q0, r.k1 - r.k0 });
            for (int64_t i = r.q0; i < r.q1; ++i)
                for (int64_t j = r.k0; j < r.k1; ++j)
                    expected.at({ i - r.q0, j - r.k0 }) = full.at({ r.head, i, j });
            // The CPU tile equals the slice of the full matrix up to summation order: the two products go through
            // different GEMM kernels (OpenBLAS or Eigen by size, blocked by what the CPU's vectors allow), so the
            // scores differ by a few float32 ulps and the probabilities by about that much (measured 2.1e-7 with
            // AVX2 kernels, under 1e-7 with AVX-512 ones). 8 ulps at 1.0 holds on any x86-64 and still catches a tile
            // normalized over its own columns instead of all keys (errors of 1e-2 and more).
            EXPECT_LE(maxAbsDiff(m_cpu.probabilityTile(q, k, r, o), expected),
                8 * std::numeric_limits<float>::epsilon());
            EXPECT_LE(maxAbsDiff(vk().probabilityTile(q, k, r, o), expected), kParityTolerance);
        }
    }
    EXPECT_EQ(vk().probabilityTile(q, k, TileRange { 0, 4, 4, 0, 10 }, {}).numel(), 0);
}

TEST_F(VulkanAttention, BadInputIsAnErrorNotADeviceFailure)
{
    const Tensor q = randomTensor({ 8, 4, 16 }, 1), k = randomTensor({ 3, 4, 16 }, 2), v = randomTensor({ 3, 4, 16 }, 3);
    EXPECT_THROW(vk().attention(q, k, v, {}), Error);
    const Tensor k2 = randomTensor({ 2, 4, 32 }, 2);
    EXPECT_THROW(vk().attentionProbabilities(q, k2, {}), Error);
    EXPECT_THROW(vk().probabilityTile(q, randomTensor({ 2, 4, 16 }, 2), TileRange { 8, 0, 1, 0, 1 }, {}), Error);
}

} // namespace
} // namespace attn::test
