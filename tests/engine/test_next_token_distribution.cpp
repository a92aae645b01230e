// SPDX-License-Identifier: MIT
// The decode timeline's top candidates against a full sort of the same probabilities, on logits full of ties and of
// neighbours one ulp apart (whose probabilities can round to one value): same ids, same order, ties in index order.
#include "session/decode_step.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

namespace attn {
namespace {

TEST(NextTokenDistributionTop, EqualsAStableSortOfTheProbabilitiesWithTiesAndNearTies)
{
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> level(0, 6), nudge(0, 3);
    for (const int64_t n : { 1, 2, 9, 10, 11, 64, 512, 777 })
        for (const int64_t k : { 1, 3, 10, 12 })
            for (int trial = 0; trial < 4; ++trial) {
                std::vector<float> logits(static_cast<size_t>(n));
                for (float& x : logits) {
                    x = 2.0f + 0.5f * static_cast<float>(level(rng)); // few distinct values: many exact ties
                    for (int u = nudge(rng); u > 0; --u) // and neighbours a few ulps apart
                        x = std::nextafter(x, 100.0f);
                }
                const NextTokenDistribution d = nextTokenDistribution(logits.data(), n, k);
                std::vector<int64_t> order(static_cast<size_t>(n));
                std::iota(order.begin(), order.end(), int64_t(0));
                std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                    return d.probabilities[static_cast<size_t>(a)] > d.probabilities[static_cast<size_t>(b)];
                });
                order.resize(static_cast<size_t>(std::min(k, n)));
                ASSERT_EQ(d.topIds, order) << "n " << n << " k " << k << " trial " << trial;
            }
}

} // namespace
} // namespace attn
