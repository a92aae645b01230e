// SPDX-License-Identifier: MIT
// `align --reverse MODEL [--symmetrize RULE]`: the symmetrized lines are the forward run's links combined with the
// reverse run's (written by `align` with --src and --tgt swapped), transposed. The hf-tiny MarianMT fixture (ids as
// text) serves as both directions.
#include "align/alignment.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <fstream>

namespace attn {
namespace {

std::vector<Links> readLinks(const std::string& path)
{
    std::vector<Links> out;
    for (const GoldAlignment& g : readGoldAlignments(path))
        out.push_back(g.sure);
    return out;
}

TEST(AlignReverseCli, SymmetrizesWithTheReverseModelsOwnAlignment)
{
    const std::string marian = test::sharedPath("fixtures/hf-tiny/marian");
    const std::string dir = test::makeTempDir("align-reverse");
    std::ofstream(dir + "/src.txt") << "120 33 7 91 15\n5 77 61\n";
    std::ofstream(dir + "/tgt.txt") << "44 12 8 19\n9 100 3 27 64\n";
    const std::string align = test::cliPath() + " align " + marian + " ";
    std::string out;
    ASSERT_EQ(
        test::runCommand(align + "--src " + dir + "/src.txt --tgt " + dir + "/tgt.txt --out " + dir + "/f.txt", &out),
        0)
        << out;
    ASSERT_EQ(
        test::runCommand(align + "--src " + dir + "/tgt.txt --tgt " + dir + "/src.txt --out " + dir + "/r.txt", &out),
        0)
        << out;
    const std::vector<Links> forward = readLinks(dir + "/f.txt"), reverse = readLinks(dir + "/r.txt");
    ASSERT_EQ(forward.size(), 2u);
    ASSERT_EQ(reverse.size(), 2u);
    for (const std::string rule : { "intersection", "grow-diag", "grow-diag-final" }) {
        ASSERT_EQ(test::runCommand(align + "--src " + dir + "/src.txt --tgt " + dir + "/tgt.txt --reverse " + marian
                          + " --symmetrize " + rule + " --out " + dir + "/s.txt",
                      &out),
            0)
            << out;
        const std::vector<Links> shown = readLinks(dir + "/s.txt");
        ASSERT_EQ(shown.size(), 2u);
        for (size_t k = 0; k < 2; ++k)
            EXPECT_EQ(shown[k], symmetrize(forward[k], transposeLinks(reverse[k]), parseSymmetrization(rule)))
                << rule << " line " << k;
    }
    // Default rule: grow-diag-final.
    ASSERT_EQ(test::runCommand(align + "--src " + dir + "/src.txt --tgt " + dir + "/tgt.txt --reverse " + marian
                      + " --out " + dir + "/d.txt",
                  &out),
        0)
        << out;
    const std::vector<Links> byDefault = readLinks(dir + "/d.txt");
    ASSERT_EQ(byDefault.size(), 2u);
    EXPECT_EQ(byDefault[1], symmetrize(forward[1], transposeLinks(reverse[1]), Symmetrization::GrowDiagFinal));
    // Usage errors: a rule without a reverse model, an unknown rule.
    EXPECT_NE(
        test::runCommand(align + "--src " + dir + "/src.txt --tgt " + dir + "/tgt.txt --symmetrize grow-diag", &out),
        0);
    EXPECT_NE(test::runCommand(align + "--src " + dir + "/src.txt --tgt " + dir + "/tgt.txt --reverse " + marian
                      + " --symmetrize union",
                  &out),
        0);
    EXPECT_NE(out.find("union"), std::string::npos) << out;
}

} // namespace
} // namespace attn
