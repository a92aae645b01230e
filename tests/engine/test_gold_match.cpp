// SPDX-License-Identifier: MIT
// checkGoldSentence: a gold sentence whose links name words the shown pair lacks, or whose corpus line (beside the
// gold file) is another one, is reported; the right one is not.
#include "align/gold_match.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace attn {
namespace {

std::vector<std::string> words(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

TEST(GoldMatch, LinksBeyondTheShownWordsAreAMismatch)
{
    const std::string dir = test::makeTempDir("gold-match-links");
    const GoldAlignment gold { { { 0, 0 }, { 3, 2 } }, { { 0, 0 }, { 3, 2 } } };
    const auto bad = checkGoldSentence(dir + "/x.align", 4, gold, words("a b c"), words("x y z"));
    ASSERT_TRUE(bad.has_value());
    EXPECT_NE(bad->message.find("source word 3"), std::string::npos) << bad->message;
    EXPECT_FALSE(bad->matchingSentence.has_value());
    EXPECT_FALSE(checkGoldSentence(dir + "/x.align", 4, gold, words("a b c d"), words("x y z")).has_value());
    // Mid-decoding the target is short; only the source side can tell.
    EXPECT_FALSE(checkGoldSentence(dir + "/x.align", 4, gold, words("a b c d"), words("x"), false).has_value());
    EXPECT_TRUE(checkGoldSentence(dir + "/x.align", 4, gold, words("a b c"), words("x"), false).has_value());
}

TEST(GoldMatch, TheCorpusBesideTheGoldFileNamesTheMatchingSentence)
{
    const std::string dir = test::makeTempDir("gold-match-corpus");
    std::ofstream(dir + "/set.en") << "the cat sleeps .\n the  dog runs .\n";
    std::ofstream(dir + "/set.fr") << "le chat dort .\nle chien court .\n";
    const GoldAlignment gold { { { 0, 0 } }, { { 0, 0 } } };
    const auto bad = checkGoldSentence(dir + "/set.align", 0, gold, words("the dog runs ."), words("le chien court ."));
    ASSERT_TRUE(bad.has_value());
    EXPECT_EQ(bad->matchingSentence, 1); // whitespace does not matter
    EXPECT_NE(bad->message.find("sentence 1"), std::string::npos) << bad->message;
    EXPECT_FALSE(checkGoldSentence(dir + "/set.align", 1, gold, words("the dog runs ."), words("le chien court .")));
    // A source in no corpus line leaves only the link check.
    EXPECT_FALSE(checkGoldSentence(dir + "/set.align", 0, gold, words("a bird"), words("un oiseau")));
}

} // namespace
} // namespace attn
