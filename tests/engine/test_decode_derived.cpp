// SPDX-License-Identifier: MIT
// The Decode tab's heatmap reads a timeline's attention derived from a copy of its queries and keys
// (DecodeTimeline::derivedAttention), and its steps keep no rows of their own: the derived rows equal the ones an
// independent Session captures, the copy stays as it was while the timeline is rewound and decoded further, and models
// whose rows cannot be derived exactly get no source (their steps keep the captured rows).
#include "attention_source/attention_source.h"
#include "core/error.h"
#include "session/decode_timeline.h"
#include "session/session.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attn {
namespace {

std::unique_ptr<DecodeTimeline> decoded(const std::string& path, const std::vector<int64_t>& prompt, int newTokens)
{
    auto timeline = openDecodeTimeline(path);
    timeline->prompt(prompt);
    for (int i = 0; i < newTokens && timeline->step(); ++i) { }
    return timeline;
}

/// Every step's attention rows as an independent Session captures them, fed the timeline's tokens one at a time.
std::vector<std::shared_ptr<const StepResult>> capturedSteps(const DecodeTimeline& timeline)
{
    Session reference(timeline.model());
    std::vector<std::shared_ptr<const StepResult>> steps;
    for (const DecodeStepPtr& s : timeline.steps())
        steps.push_back(reference.step(s->token.id));
    return steps;
}

/// Largest difference between the derived rows and each step's captured row (issue #3's stepping-vs-whole-pass
/// tolerance applies: the two sum the same products in different orders); keys after the query must be exactly 0.
double maxDifference(const AttentionSource& source, const std::vector<std::shared_ptr<const StepResult>>& steps)
{
    double worst = 0.0;
    const int64_t n = source.numKeys();
    for (int64_t l = 0; l < source.numLayers(); ++l)
        for (int64_t h = 0; h < source.numHeads(); ++h) {
            const auto rows = source.rows(l, h, 0, n);
            for (int64_t q = 0; q < n; ++q) {
                const Tensor& captured
                    = steps[static_cast<size_t>(q)]->attention[static_cast<size_t>(l)]; // [heads, 1, q + 1]
                for (int64_t k = 0; k < n; ++k) {
                    const float derived = rows->data()[q * n + k];
                    if (k > q) {
                        EXPECT_EQ(derived, 0.0f) << "layer " << l << " head " << h << " row " << q << " key " << k;
                        continue;
                    }
                    worst = std::max(worst, std::abs(double(derived) - captured.data()[h * (q + 1) + k]));
                }
            }
        }
    return worst;
}

TEST(DecodeDerivedAttention, EqualsEveryStepsCapturedRows)
{
    for (const char* path : { "models/stories260K/stories260K.bin", "fixtures/hf-tiny/llama", "fixtures/hf-tiny/gpt2" }) {
        SCOPED_TRACE(path);
        const auto timeline = decoded(test::sharedPath(path), { 1, 42, 7 }, 29);
        ASSERT_EQ(timeline->length(), 32);
        for (const DecodeStepPtr& s : timeline->steps())
            EXPECT_TRUE(s->attention.empty()) << "position " << s->position << " kept rows that can be derived";
        for (const int64_t positions : { int64_t(1), int64_t(17), int64_t(32) }) {
            const auto source = timeline->derivedAttention(positions);
            ASSERT_NE(source, nullptr);
            EXPECT_EQ(source->numQueries(), positions);
            EXPECT_LT(maxDifference(*source, capturedSteps(*timeline)), 1e-5) << positions << " positions";
        }
    }
}

TEST(DecodeDerivedAttention, StaysAsItWasWhileTheTimelineIsRewoundAndDecodedFurther)
{
    const auto timeline = decoded(test::sharedPath("models/stories260K/stories260K.bin"), { 1 }, 24);
    const auto source = timeline->derivedAttention(timeline->length());
    const auto before = source->rows(2, 3, 0, source->numQueries());
    const auto steps = capturedSteps(*timeline);
    for (int i = 0; i < 6; ++i)
        timeline->back();
    timeline->force(timeline->length() - 2, 99); // other tokens at positions the copy holds
    for (int i = 0; i < 12; ++i)
        timeline->step();
    // Row by row: other tiles than the cached one, so they are computed again from the copy.
    const int64_t n = source->numQueries();
    for (int64_t q = 0; q < n; ++q) {
        const auto row = source->rows(2, 3, q, q + 1);
        for (int64_t k = 0; k < n; ++k)
            ASSERT_NEAR(row->data()[k], before->data()[q * n + k], 1e-6) << "row " << q << " key " << k;
    }
    EXPECT_LT(maxDifference(*source, steps), 1e-5);
}

TEST(DecodeDerivedAttention, SoftCappedScoresGetNoSource)
{
    // gemma2 soft-caps its scores and alternates windows: only the captured rows are exact.
    const auto timeline = decoded(test::sharedPath("fixtures/hf-tiny/gemma2"), { 2, 100, 200 }, 3);
    EXPECT_EQ(timeline->derivedAttention(timeline->length()), nullptr);
    for (const DecodeStepPtr& s : timeline->steps()) // so every step keeps its captured rows
        EXPECT_EQ(s->attention.size(), static_cast<size_t>(timeline->info().numLayers)) << "position " << s->position;
}

TEST(DecodeDerivedAttention, PositionsOutsideTheTimelineAreAnError)
{
    const auto timeline = decoded(test::sharedPath("models/stories260K/stories260K.bin"), { 1 }, 3);
    EXPECT_THROW(timeline->derivedAttention(0), Error);
    EXPECT_THROW(timeline->derivedAttention(timeline->length() + 1), Error);
}

} // namespace
} // namespace attn
