// SPDX-License-Identifier: MIT
// Token chips: every token by default; with a cap, the newest ones after a note counting the rest. Their area in the
// Input dock is as tall as their rows, up to a maximum.
#include "widgets/chips_area.h"
#include "widgets/token_chips_view.h"

#include <QScrollBar>
#include <QTest>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

std::vector<TokenChip> numbered(int n)
{
    std::vector<TokenChip> tokens;
    for (int i = 0; i < n; ++i)
        tokens.push_back({ "t" + std::to_string(i), i, i == 0 });
    return tokens;
}

TEST(TokenChipsView, ShowsEveryTokenWithoutACap)
{
    TokenChipsView view;
    view.setTokens(numbered(200));
    EXPECT_EQ(view.count(), 200);
    EXPECT_EQ(view.shownCount(), 200);
    EXPECT_EQ(view.firstShown(), 0);
    view.resize(300, view.heightForWidth(300));
    EXPECT_FALSE(view.chipRect(0).isEmpty());
    // Chips wrap: the last one is below the first, and every chip fits the width.
    EXPECT_GT(view.chipRect(199).top(), view.chipRect(0).top());
    for (int i = 0; i < 200; ++i)
        EXPECT_LE(view.chipRect(i).right(), 300);
    EXPECT_LE(view.chipRect(199).bottom(), view.height());
}

TEST(TokenChipsView, CapShowsTheNewestTokensAndCountsTheRest)
{
    TokenChipsView view;
    view.setMaxShown(96);
    view.setTokens(numbered(200));
    EXPECT_EQ(view.count(), 200);
    EXPECT_EQ(view.specialCount(), 1); // counted even though its chip is folded away
    EXPECT_EQ(view.shownCount(), 96);
    EXPECT_EQ(view.firstShown(), 104);
    view.resize(300, view.heightForWidth(300));
    EXPECT_TRUE(view.chipRect(103).isEmpty());
    EXPECT_FALSE(view.chipRect(104).isEmpty());
    EXPECT_FALSE(view.chipRect(199).isEmpty());
    EXPECT_GT(view.chipRect(104).left(), 0); // after the note
    view.setTokens(numbered(50)); // under the cap: all of them, no note
    EXPECT_EQ(view.shownCount(), 50);
    EXPECT_EQ(view.chipRect(0).left(), 0);
}

TEST(TokenChipsView, MeasuresEachTextOnceAndLaysOutOnlyWhenTheChipsChange)
{
    // As the Decode tab sets them during Run: the newest 96 of a growing sequence, ~10 times a second.
    TokenChipsView view;
    view.setMaxShown(96);
    view.resize(300, 200);
    std::vector<TokenChip> tokens = numbered(200);
    view.setTokens(tokens);
    const QRect last = view.chipRect(199);
    EXPECT_EQ(view.measurements(), 97); // 96 chips and the note
    EXPECT_EQ(view.layouts(), 1);
    tokens.push_back({ "t200", 200, false }); // a step: one new text, the note counts one more
    view.setTokens(tokens);
    EXPECT_FALSE(view.chipRect(200).isEmpty());
    EXPECT_EQ(view.measurements(), 99);
    EXPECT_EQ(view.layouts(), 2);
    tokens.pop_back(); // Back: every text was measured before, only the note is new
    view.setTokens(tokens);
    EXPECT_EQ(view.chipRect(199), last);
    EXPECT_EQ(view.measurements(), 100);
    tokens.push_back({ "t150", 150, false }); // a text shown before: measured then
    view.setTokens(tokens);
    EXPECT_EQ(view.chipRect(200).width(), view.chipRect(150).width());
    EXPECT_EQ(view.measurements(), 101);
    // The same chips again (a redraw of the step shown): no layout, and painting measures nothing either.
    const int layouts = view.layouts();
    view.setTokens(tokens);
    view.grab();
    view.chipRect(200);
    EXPECT_EQ(view.layouts(), layouts);
    EXPECT_EQ(view.measurements(), 101);
    view.resize(500, 200); // another width lays them out again, from the widths at hand
    view.chipRect(200);
    EXPECT_EQ(view.layouts(), layouts + 1);
    EXPECT_EQ(view.measurements(), 101);
}

TEST(ChipsArea, AsTallAsItsRowsUpToItsMaximumThenItScrolls)
{
    auto* chips = new TokenChipsView;
    ChipsArea area(chips, 2, 0.1);
    area.resize(400, 200);
    area.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&area));
    chips->setTokens(numbered(3));
    QTRY_COMPARE(area.height(), chips->heightForWidth(area.viewport()->width()));
    EXPECT_LT(area.height(), 2 * area.fontMetrics().height()) << "one row, no blank lines below it";
    chips->setTokens(numbered(300));
    QTRY_COMPARE(area.height(), chips->rowsHeight(2));
    EXPECT_GT(chips->height(), chips->rowsHeight(2));
    QTRY_VERIFY(area.verticalScrollBar()->maximum() > 0); // the rest scrolls
    // In a tall window the limit is as many rows as fit in a tenth of its height.
    area.setWindowHeight(10 * chips->rowsHeight(4));
    EXPECT_EQ(area.maxRows(), 4);
    QTRY_COMPARE(area.height(), chips->rowsHeight(4));
    area.setWindowHeight(10 * chips->rowsHeight(2) - 1); // a short one keeps two rows
    EXPECT_EQ(area.maxRows(), 2);
    QTRY_COMPARE(area.height(), chips->rowsHeight(2));
    chips->setTokens(numbered(3)); // and it shrinks again
    QTRY_VERIFY(area.height() < 2 * area.fontMetrics().height());
}

} // namespace
} // namespace attn::ui
