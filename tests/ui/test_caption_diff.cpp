// SPDX-License-Identifier: MIT
// The Caption tab's word difference (a longest common subsequence of token ids) and its head mask list.
#include "caption/caption_diff.h"
#include "caption/caption_mask.h"
#include "core/error.h"

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

TEST(CaptionDiff, MarksOnlyTheWordsOutsideTheCommonSubsequence)
{
    // "a green cross above a blue cross" -> "a green square above a cross": one word changed, one dropped.
    const CaptionDiff d = diffCaptions({ 1, 2, 3, 4, 1, 5, 3 }, { 1, 2, 6, 4, 1, 3 });
    EXPECT_EQ(d.removed, (std::vector<bool> { false, false, true, false, false, true, false }));
    EXPECT_EQ(d.added, (std::vector<bool> { false, false, true, false, false, false }));
    EXPECT_FALSE(d.same());
    // An inserted word marks that word only, not every word after it.
    const CaptionDiff inserted = diffCaptions({ 1, 2, 3 }, { 9, 1, 2, 3 });
    EXPECT_EQ(inserted.removed, (std::vector<bool> { false, false, false }));
    EXPECT_EQ(inserted.added, (std::vector<bool> { true, false, false, false }));
    EXPECT_TRUE(diffCaptions({ 4, 5 }, { 4, 5 }).same());
    const CaptionDiff empty = diffCaptions({}, { 7 });
    EXPECT_TRUE(empty.removed.empty());
    EXPECT_EQ(empty.added, (std::vector<bool> { true }));
}

TEST(CaptionMask, EntriesBecomeTheEnginesRowsAndALaterFactorReplacesAnEarlierOne)
{
    const Seq2SeqHeadRows rows { 2, 3, 4 }; // 2 encoder layers, 3 decoder layers: rows 0-1, 2-4, 5-7
    EXPECT_EQ(captionMaskRow(rows, CaptionAttention::Encoder, 1), 1);
    EXPECT_EQ(captionMaskRow(rows, CaptionAttention::DecoderSelf, 0), 2);
    EXPECT_EQ(captionMaskRow(rows, CaptionAttention::Cross, 2), 7);
    EXPECT_THROW(captionMaskRow(rows, CaptionAttention::Encoder, 2), Error);
    EXPECT_TRUE(captionHeadMask({}, rows).empty()) << "no entry: the unmodified model, not a mask of ones";

    std::vector<CaptionMaskEntry> mask = withEntry({}, { 7, 3, 0.0f });
    mask = withEntry(mask, { 1, 0, 0.5f });
    mask = withEntry(mask, { 7, 3, 2.0f });
    ASSERT_EQ(mask.size(), 2u);
    const Tensor m = captionHeadMask(mask, rows);
    ASSERT_EQ(m.shape(), (Shape { 8, 4 }));
    for (int64_t r = 0; r < 8; ++r)
        for (int64_t h = 0; h < 4; ++h) {
            const float want = r == 7 && h == 3 ? 2.0f : r == 1 && h == 0 ? 0.5f : 1.0f;
            EXPECT_EQ(m.at({ r, h }), want) << r << "," << h;
        }
    EXPECT_EQ(captionMaskText(mask, rows), QString::fromUtf8("enc L1.H0 ×0.5, cross L2.H3 ×2"));
    EXPECT_TRUE(withEntry(mask, { 1, 0, 1.0f }).size() == 1u) << "a factor of 1 takes the head out of the mask";
    EXPECT_THROW(captionHeadMask({ { 8, 0, 0.0f } }, rows), Error);
}

} // namespace
} // namespace attn::ui
