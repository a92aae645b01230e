// SPDX-License-Identifier: MIT
// Token chips: every token by default; with a cap, the newest ones after a note counting the rest.
#include "widgets/token_chips_view.h"

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
    EXPECT_TRUE(view.text().contains("&nbsp;t0&nbsp;"));
    EXPECT_FALSE(view.text().contains("earlier"));
}

TEST(TokenChipsView, CapShowsTheNewestTokensAndCountsTheRest)
{
    TokenChipsView view;
    view.setMaxShown(96);
    view.setTokens(numbered(200));
    EXPECT_EQ(view.count(), 200);
    EXPECT_EQ(view.specialCount(), 1); // counted even though its chip is folded away
    EXPECT_EQ(view.shownCount(), 96);
    EXPECT_TRUE(view.text().contains("104 earlier"));
    EXPECT_FALSE(view.text().contains("&nbsp;t103&nbsp;"));
    EXPECT_TRUE(view.text().contains("&nbsp;t104&nbsp;"));
    EXPECT_TRUE(view.text().contains("&nbsp;t199&nbsp;"));
    view.setTokens(numbered(50)); // under the cap: all of them, no note
    EXPECT_EQ(view.shownCount(), 50);
    EXPECT_FALSE(view.text().contains("earlier"));
}

} // namespace
} // namespace attn::ui
