// SPDX-License-Identifier: MIT
// multiHeadAttentionInto, the core over keys and values kept apart per kv head (the KV cache's layout), against
// multiHeadAttention over the same heads stacked in one tensor: the same arithmetic on the same rows, so the same bits.
#include "attention/attention.h"
#include "core/error.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace attn {
namespace {

Tensor randomTensor(Shape shape, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    Tensor t(std::move(shape));
    for (float& x : t.storage())
        x = dist(rng);
    return t;
}

/// Head h of a [heads, t, dim] tensor as its own [1, t, dim] tensor.
Tensor head(const Tensor& t, int64_t h)
{
    const int64_t rows = t.dim(1), dim = t.dim(2);
    return Tensor({ 1, rows, dim }, std::vector<float>(t.data() + h * rows * dim, t.data() + (h + 1) * rows * dim));
}

TEST(AttentionKvHeads, HeadsKeptApartGiveTheBitsOfTheStackedCall)
{
    // Decode steps and a prefill, GQA 6 query heads on 3 kv heads, a causal offset, a window, a per-head keep mask and
    // head scales; short rows (exact softmax) and long ones (the vectorized exp).
    for (const int64_t nq : { int64_t(1), int64_t(5) })
        for (const int64_t nk : { int64_t(7), int64_t(300) }) {
            const int64_t hq = 6, hkv = 3, d = 8, dv = 5;
            const Tensor q = randomTensor({ hq, nq, d }, 1), k = randomTensor({ hkv, nk, d }, 2),
                         v = randomTensor({ hkv, nk, dv }, 3);
            Tensor keep = randomTensor({ hq, nq, nk }, 4);
            for (float& x : keep.storage())
                x = x > -1.5f ? 1.0f : 0.0f;
            const std::vector<float> scales { 1.0f, 0.5f, 0.0f, 1.0f, 2.0f, 1.0f };
            AttentionOptions o;
            o.mask.causal = true;
            o.mask.queryOffset = nk - nq;
            o.mask.slidingWindow = nk - 2;
            o.mask.keepMask = &keep;
            o.headScale = scales;
            const AttentionResult want = multiHeadAttention(q, k, v, o);

            std::vector<Tensor> ks, vs;
            for (int64_t h = 0; h < hkv; ++h) {
                ks.push_back(head(k, h));
                vs.push_back(head(v, h));
            }
            std::vector<const Tensor*> keys, values;
            for (int64_t h = 0; h < hkv; ++h) {
                keys.push_back(&ks[static_cast<size_t>(h)]);
                values.push_back(&vs[static_cast<size_t>(h)]);
            }
            Tensor probs({ hq, nq, nk }), output({ hq, nq, dv });
            multiHeadAttentionInto(q, keys, values, o, probs.data(), output.data());
            EXPECT_EQ(probs.storage(), want.probs.storage()) << "nq=" << nq << " nk=" << nk;
            EXPECT_EQ(output.storage(), want.output.storage()) << "nq=" << nq << " nk=" << nk;

            Tensor outputOnly({ hq, nq, dv });
            multiHeadAttentionInto(q, keys, values, o, nullptr, outputOnly.data());
            EXPECT_EQ(outputOnly.storage(), want.output.storage()) << "without probabilities";
        }
}

TEST(AttentionKvHeads, HeadsOfDifferentShapesAreAnErrorNotARead)
{
    const Tensor q = randomTensor({ 4, 1, 8 }, 1);
    const Tensor k0 = randomTensor({ 1, 6, 8 }, 2), k1 = randomTensor({ 1, 5, 8 }, 3),
                 v0 = randomTensor({ 1, 6, 4 }, 4);
    const Tensor* keys[] = { &k0, &k1 };
    const Tensor* values[] = { &v0, &v0 };
    Tensor output({ 4, 1, 4 });
    EXPECT_THROW(multiHeadAttentionInto(q, keys, values, {}, nullptr, output.data()), Error);
    // As many value heads as key heads, or an error.
    EXPECT_THROW(
        multiHeadAttentionInto(q, std::span(keys, 1), std::span(values, 2), {}, nullptr, output.data()), Error);
    // 4 query heads on 1 kv head, its keys [1, 6, 8] and values [1, 6, 4]: fine.
    EXPECT_NO_THROW(multiHeadAttentionInto(q, std::span(keys, 1), std::span(values, 1), {}, nullptr, output.data()));
}

} // namespace
} // namespace attn
