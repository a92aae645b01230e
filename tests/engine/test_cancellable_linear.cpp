// SPDX-License-Identifier: MIT
// cancellableLinear(): a large product split into blocks of x's rows or of w's rows, asking for cancel between them,
// gives linear()'s result within the rounding of a float32 dot product, and a forward pass with cancelRequested set
// gives the same logits within it and stops inside its LM head.
// The bound: each result is a float32 dot product of length k, summed in some order, so each lies within
// gamma_k * sum_i |x_i w_i| of the exact value (gamma_k = k u / (1 - k u), u = eps / 2); the two differ by at most
// twice that, about k * eps * sum_i |x_i w_i|, plus one rounding of the bias added to each. It holds for any order
// of summation, so on every CPU: OpenBLAS's AVX-512 and Sandy Bridge kernels gave bit-identical blocks here, its
// Haswell / Zen and SSE kernels (OPENBLAS_CORETYPE) results that differ in the last bits.
#include "core/error.h"
#include "io/safetensors.h"
#include "model/cancellable_linear.h"
#include "model/kv_cache.h"
#include "model/layers.h"
#include "model/model_loader.h"
#include "model_test_util.h"
#include "support/cancel_timer.h"
#include "support/long_context_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace attn {
namespace {

Tensor randomTensor(Shape shape, uint32_t seed)
{
    Tensor t(std::move(shape));
    std::mt19937 rng(seed);
    std::normal_distribution<float> value(0.0f, 1.0f);
    for (float& v : t.storage())
        v = value(rng);
    return t;
}

Tensor absolute(const Tensor& t)
{
    Tensor a = t;
    for (float& v : a.storage())
        v = std::abs(v);
    return a;
}

/// How many elements of `a` and `b` (two results of x w^T + bias) differ by more than the bound in the header.
int64_t outsideDotProductBound(const Tensor& a, const Tensor& b, const Tensor& x, const Tensor& w)
{
    EXPECT_EQ(a.shape(), b.shape());
    const Tensor magnitude = linear(absolute(x), absolute(w)); // sum_i |x_i w_i| per element
    const double eps = std::numeric_limits<float>::epsilon(), k = static_cast<double>(x.dim(1));
    int64_t outside = 0;
    for (int64_t i = 0; i < a.numel(); ++i) {
        // k + 2 for gamma_k's denominator and magnitude's own rounding; 2 eps |a| for the bias's rounding.
        const double bound = (k + 2.0) * eps * magnitude.data()[i] + 2.0 * eps * std::abs(a.data()[i]);
        outside += std::abs(static_cast<double>(a.data()[i]) - b.data()[i]) > bound ? 1 : 0;
    }
    return outside;
}

struct Product {
    int64_t rows, in, out;
    int64_t blocks; ///< blocks of 2^22 multiply-adds (192-row multiples; the last takes the remainder)
};

TEST(CancellableLinear, BlocksOfEitherSideGiveTheWholeProductWithinADotProductsRounding)
{
    // Depths that are not multiples of a vector or a tile (100, 130, 77), and last blocks longer than the others.
    const Product products[] = {
        { 1000, 100, 300, 5 }, // split by rows of x: 1000 = 4 x 192 + 232
        { 40, 130, 6000, 7 }, // split by rows of w (an LM head's shape): 6000 = 6 x 768 + 1392
        { 500, 77, 2000, 10 }, // rows of w, 192 each: 2000 = 9 x 192 + 272
    };
    uint32_t seed = 1;
    for (const Product& p : products) {
        const Tensor x = randomTensor({ p.rows, p.in }, seed++), w = randomTensor({ p.out, p.in }, seed++),
                     bias = randomTensor({ p.out }, seed++);
        for (const Tensor* b : { static_cast<const Tensor*>(nullptr), &bias }) {
            int polls = 0;
            const auto count = [&] {
                ++polls;
                return false;
            };
            const Tensor blocked = cancellableLinear(x, w, b, count, int64_t(1) << 22);
            EXPECT_EQ(polls, p.blocks - 1) << p.rows << " x " << p.in << " x " << p.out; // it was split as planned
            EXPECT_EQ(outsideDotProductBound(blocked, linear(x, w, b), x, w), 0)
                << p.rows << " x " << p.in << " x " << p.out;
        }
    }
}

TEST(CancellableLinear, StopsAtTheFirstTrueBetweenBlocksAndRunsSmallProductsWhole)
{
    const Tensor x = randomTensor({ 1000, 100 }, 1), w = randomTensor({ 300, 100 }, 2);
    int polls = 0;
    EXPECT_THROW(cancellableLinear(
                     x, w, nullptr, [&] { return ++polls == 2; }, int64_t(1) << 22),
        Cancelled);
    EXPECT_EQ(polls, 2);
    // One row (a decode step: OpenBLAS's gemv) and products of one block are never split, so never asked.
    polls = 0;
    const auto stop = [&] {
        ++polls;
        return true;
    };
    const Tensor row = randomTensor({ 1, 100 }, 3), big = randomTensor({ 60000, 100 }, 4);
    // Run whole, they are linear() itself: the same call of the same kernel on the same operands.
    EXPECT_EQ(test::maxAbsDiff(cancellableLinear(row, big, nullptr, stop), linear(row, big)), 0.0);
    EXPECT_EQ(test::maxAbsDiff(cancellableLinear(x, w, nullptr, stop), linear(x, w)), 0.0);
    EXPECT_EQ(polls, 0);
    // A misfit is linear()'s error, not a crash in a block.
    EXPECT_THROW(cancellableLinear(x, randomTensor({ 300, 99 }, 5), nullptr, [] { return false; }), Error);
}

TEST(CancellableLinear, AForwardWithCancelHasTheSameLogitsWithinItAndStopsInsideItsLmHead)
{
    // The LM head of 400 positions (400 x 64 x 50,257, 1.3G multiply-adds) is 9 blocks of 5,184 vocabulary rows.
    const test::LongContextModel m = test::makeLongContextModel("llama", 512, 8);
    const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(m.dir));
    ASSERT_TRUE(model);
    const std::vector<int64_t> ids = test::syntheticTokens(400, 1, model->config().vocabSize);
    KvCache plainCache = model->newCache(), cancellableCache = model->newCache();
    ForwardOptions options;
    options.wantAttention = false;
    options.wantHiddenStates = true; // the last is the LM head's input
    const StepResult plain = model->forward(plainCache, ids, options);
    options.cancelRequested = [] { return false; };
    const StepResult cancellable = model->forward(cancellableCache, ids, options);
    // Only the LM head is large enough to be split here: what feeds it is the same computation in both passes.
    ASSERT_EQ(test::maxAbsDiff(plain.hiddenStates.back(), cancellable.hiddenStates.back()), 0.0);
    const Tensor lmHead = SafetensorsStore::open(m.dir + "/model.safetensors")->load("lm_head.weight");
    EXPECT_EQ(outsideDotProductBound(plain.logits, cancellable.logits, plain.hiddenStates.back(), lmHead), 0);
    options.wantHiddenStates = false;

    // After the last layer's report only the LM head's blocks ask: the second of them stops the pass.
    bool lastLayerDone = false;
    int pollsAfter = 0;
    options.layerDone = [&](int64_t done, int64_t total) {
        lastLayerDone = done == total;
        return true;
    };
    options.cancelRequested = [&] { return lastLayerDone && ++pollsAfter == 3; }; // the first: the layer's own check
    KvCache cache = model->newCache();
    EXPECT_THROW(model->forward(cache, ids, options), Cancelled);
    EXPECT_EQ(pollsAfter, 3);
    EXPECT_EQ(cache.length(), 0);
}

} // namespace
} // namespace attn
