// SPDX-License-Identifier: MIT
// Head atlas scores on hand-made attention patterns, merging and the scores.json round trip.
#include "analysis/head_atlas.h"
#include "core/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn::test {
namespace {

/// One layer of two heads over `n` positions: head 0 attends to the previous token (position 0 to itself), head 1
/// to the key after the last earlier occurrence of the current token (else to position 0).
std::vector<Tensor> patterns(const std::vector<int64_t>& t)
{
    const auto n = static_cast<int64_t>(t.size());
    Tensor a({ 2, n, n });
    for (int64_t q = 0; q < n; ++q) {
        a.data()[q * n + std::max<int64_t>(q - 1, 0)] = 1.0f;
        int64_t key = 0;
        for (int64_t j = 0; j < q; ++j)
            if (t[size_t(j)] == t[size_t(q)]) key = j + 1;
        a.data()[(n + q) * n + key] = 1.0f;
    }
    return { a };
}

TEST(Atlas, ScoresFollowTheDefinitions)
{
    const std::vector<int64_t> t { 7, 1, 2, 3, 1, 2, 3 };
    HeadAtlas atlas(1, 2);
    atlas.add(t, patterns(t));
    const auto at = [&](AtlasScore s, int64_t h) { return atlas.score(s).data()[h]; };
    EXPECT_FLOAT_EQ(at(AtlasScore::PreviousToken, 0), 1.0f);
    EXPECT_FLOAT_EQ(at(AtlasScore::Induction, 1), 1.0f);
    // Head 0 at the repeats (q = 4, 5, 6) looks at q - 1, which follows the earlier occurrence only ... never: 0.
    EXPECT_FLOAT_EQ(at(AtlasScore::Induction, 0), 0.0f);
    // Head 1 puts no mass on the previous token except where the induction key is q - 1 (never here) or q = 1 -> 0.
    EXPECT_FLOAT_EQ(at(AtlasScore::PreviousToken, 1), 1.0f / 6.0f);
    EXPECT_FLOAT_EQ(at(AtlasScore::DuplicateToken, 0), 0.0f);
    EXPECT_FLOAT_EQ(at(AtlasScore::FirstToken, 1), 4.0f / 7.0f);
    EXPECT_FLOAT_EQ(at(AtlasScore::Entropy, 0), 0.0f);
    EXPECT_FLOAT_EQ(at(AtlasScore::MeanDistance, 0), 6.0f / 7.0f);
}

TEST(Atlas, ACancelledAddStopsBeforeTheNextHeadAndLeavesTheAtlasAsItWas)
{
    const std::vector<int64_t> t { 7, 1, 2, 3, 1, 2, 3 };
    HeadAtlas atlas(1, 2);
    atlas.add(t, patterns(t));
    const Tensor before = atlas.score(AtlasScore::PreviousToken);
    int polls = 0;
    EXPECT_THROW(atlas.add(t, patterns(t), [&] { return ++polls == 2; }), Cancelled); // before head 1
    EXPECT_EQ(polls, 2);
    EXPECT_EQ(atlas.inputs(), 1);
    const Tensor after = atlas.score(AtlasScore::PreviousToken);
    EXPECT_EQ(after.data()[0], before.data()[0]);
    EXPECT_EQ(after.data()[1], before.data()[1]);
    // Not cancelled, it adds the input as add() without a poll does.
    atlas.add(t, patterns(t), [] { return false; });
    EXPECT_EQ(atlas.inputs(), 2);
    EXPECT_FLOAT_EQ(atlas.score(AtlasScore::PreviousToken).data()[1], 1.0f / 6.0f);
}

// Issue 20: a head of a long line is millions of logarithms, too long to run without a poll (cancel within 200 ms).
TEST(Atlas, ALongHeadIsPolledAtLeastEvery2To18ScoresAndACancelInsideItAddsNothing)
{
    std::vector<int64_t> t(2048);
    for (size_t i = 0; i < t.size(); ++i)
        t[i] = static_cast<int64_t>(i % 100);
    const std::vector<Tensor> a = patterns(t);
    const int64_t n = static_cast<int64_t>(t.size()), entries = 2 * n * n;
    HeadAtlas atlas(1, 2);
    int64_t polls = 0;
    atlas.add(t, a, [&] {
        ++polls;
        return false;
    });
    EXPECT_GE(polls, entries >> 18) << "at least one poll per 2^18 attention entries";
    EXPECT_FLOAT_EQ(atlas.score(AtlasScore::Induction).data()[1], 1.0f)
        << "head 1 attends to the key after the last earlier occurrence";

    const std::string before = atlas.toJson(); // every total
    polls = 0;
    EXPECT_THROW(atlas.add(t, a, [&] { return ++polls == 3; }), Cancelled); // inside head 0
    EXPECT_EQ(atlas.inputs(), 1);
    EXPECT_EQ(atlas.toJson(), before);
}

TEST(Atlas, NoQualifyingQueryIsNaN)
{
    const std::vector<int64_t> t { 1, 2, 3 };
    HeadAtlas atlas(1, 2);
    atlas.add(t, patterns(t));
    EXPECT_TRUE(std::isnan(atlas.score(AtlasScore::Induction).data()[0]));
    EXPECT_TRUE(std::isnan(atlas.score(AtlasScore::DuplicateToken).data()[1]));
}

TEST(Atlas, ShardsMergeToTheWholeAndSurviveJson)
{
    const std::vector<int64_t> a { 7, 1, 2, 1, 2 }, b { 7, 3, 3, 3 };
    HeadAtlas whole(1, 2), first(1, 2), second(1, 2);
    whole.add(a, patterns(a));
    whole.add(b, patterns(b));
    first.add(a, patterns(a));
    second.add(b, patterns(b));
    HeadAtlas merged = HeadAtlas::fromJson(first.toJson(), "first");
    merged.merge(HeadAtlas::fromJson(second.toJson(), "second"));
    EXPECT_EQ(merged.inputs(), 2);
    for (int s = 0; s < kAtlasScores; ++s)
        for (int64_t h = 0; h < 2; ++h)
            EXPECT_NEAR(merged.score(AtlasScore(s)).data()[h], whole.score(AtlasScore(s)).data()[h], 1e-6)
                << atlasScoreNames()[size_t(s)];
    EXPECT_THROW(merged.merge(HeadAtlas(2, 2)), Error);
    EXPECT_THROW(HeadAtlas::fromJson("{\"layers\": 1}", "bad.json"), Error);
}

TEST(Atlas, InductionProbeRepeatsItsSpanAfterBos)
{
    std::mt19937_64 rng(3);
    const std::vector<int64_t> p = inductionProbe(5, 20, 19, 18, rng);
    ASSERT_EQ(p.size(), 11u);
    EXPECT_EQ(p[0], 19);
    for (size_t i = 1; i <= 5; ++i) {
        EXPECT_EQ(p[i], p[i + 5]);
        EXPECT_NE(p[i], 19);
        EXPECT_NE(p[i], 18);
    }
}

} // namespace
} // namespace attn::test
