// SPDX-License-Identifier: MIT
// AddedTokens is indexed (tens of thousands of entries load in linear time); these pin the matching rules the index
// must keep: leftmost position, then the longest content; the first id given for a content and for an id wins.
#include "tokenizer/added_tokens.h"

#include <gtest/gtest.h>

#include <string>

namespace attn {
namespace {

std::string describe(const std::string& text, const AddedTokens& added)
{
    std::string out;
    for (const AddedTokens::Segment& s : added.split(text))
        out += "[" + text.substr(s.begin, s.end - s.begin) + ":" + std::to_string(s.id) + "]";
    return out;
}

TEST(AddedTokens, LongestContentWinsAtTheLeftmostPosition)
{
    AddedTokens added;
    added.add("<|end|>", 5, true);
    added.add("<|end", 6, false);
    added.add("<", 7, false);
    added.add("d|>x", 8, false); // starts later than "<|end|>": the leftmost match is taken first
    EXPECT_EQ(describe("a<|end|>x<|en<", added), "[a:-1][<|end|>:5][x:-1][<:7][|en:-1][<:7]");
    EXPECT_EQ(describe("<|endd|>x", added), "[<|end:6][d|>x:8]");
    EXPECT_EQ(describe("", added), "");
}

TEST(AddedTokens, TheFirstIdForAContentAndTheFirstContentForAnIdStay)
{
    AddedTokens added;
    added.add("[MASK]", 4, false);
    added.add("[MASK]", 9, true); // same content again: only widens special
    added.add("<mask>", 4, false);
    ASSERT_NE(added.find("[MASK]"), nullptr);
    EXPECT_EQ(added.find("[MASK]")->id, 4);
    EXPECT_TRUE(added.find("[MASK]")->special);
    EXPECT_EQ(added.find(9), nullptr);
    ASSERT_NE(added.find(4), nullptr);
    EXPECT_EQ(added.find(4)->content, "[MASK]");
    EXPECT_EQ(added.find("<mask>")->id, 4);
    EXPECT_EQ(describe("x<mask>[MASK]", added), "[x:-1][<mask>:4][[MASK]:4]");
}

TEST(AddedTokens, ManyEntriesSplitLikeFew)
{
    AddedTokens many;
    for (int i = 0; i < 50000; ++i)
        many.add("<t" + std::to_string(i) + ">", 1000 + i, false);
    EXPECT_EQ(describe("a<t49999><t7><t50000>", many), "[a:-1][<t49999>:50999][<t7>:1007][<t50000>:-1]");
    ASSERT_NE(many.find(1000 + 123), nullptr);
    EXPECT_EQ(many.find(1000 + 123)->content, "<t123>");
}

} // namespace
} // namespace attn
