// SPDX-License-Identifier: MIT
// `translate` and `align` end to end on the PyTorch-tutorial GRU toy, against its recorded reference translations.
#include "support/shared_data.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace attn {
namespace {

nlohmann::json toyReferences()
{
    std::ifstream in(test::sharedPath("models/seq2seq-attn-de-en-toy/reference_translations_with_attention.json"));
    return nlohmann::json::parse(in);
}

TEST(TranslateCli, GreedyAndBeamReproduceTheToysReferenceTranslations)
{
    const std::string toy = test::sharedPath("models/seq2seq-attn-de-en-toy");
    const auto refs = toyReferences();
    ASSERT_EQ(refs.size(), 11u);
    for (const auto& r : refs) {
        std::string out;
        ASSERT_EQ(test::runCommand(test::cliPath() + " translate " + toy + " --prompt '" + r["src"].get<std::string>() + "'",
                      &out),
            0)
            << out;
        EXPECT_EQ(out, r["hyp"].get<std::string>() + "\n") << r["src"];
    }
    std::string out;
    ASSERT_EQ(test::runCommand(test::cliPath() + " translate " + toy + " --beam 4 --prompt '"
                      + refs[0]["src"].get<std::string>() + "'",
                  &out),
        0);
    EXPECT_EQ(out, refs[0]["hyp"].get<std::string>() + "\n");
}

TEST(AlignCli, WritesOneAlignmentPerPairAndScoresAgainstGold)
{
    const std::string toy = test::sharedPath("models/seq2seq-attn-de-en-toy");
    const auto refs = toyReferences();
    const std::string dir = test::makeTempDir("align-cli");
    std::ofstream(dir + "/src.txt") << refs[0]["src"].get<std::string>() << "\n" << refs[1]["src"].get<std::string>() << "\n";
    std::ofstream(dir + "/tgt.txt") << refs[0]["ref"].get<std::string>() << "\n" << refs[1]["ref"].get<std::string>() << "\n";
    // Gold: the first target word of each pair is linked (sure) to source word 0, and target word 1 possibly to 1.
    std::ofstream(dir + "/gold.txt") << "0-0 1?1\n0-0 1?1\n";
    std::string out;
    ASSERT_EQ(test::runCommand(test::cliPath() + " align " + toy + " --src " + dir + "/src.txt --tgt " + dir
                      + "/tgt.txt --gold " + dir + "/gold.txt --out " + dir + "/a.txt",
                  &out),
        0)
        << out;
    EXPECT_NE(out.find("AER"), std::string::npos) << out;
    std::ifstream in(dir + "/a.txt");
    std::string line;
    int lines = 0;
    while (std::getline(in, line)) {
        ++lines;
        EXPECT_NE(line.find('-'), std::string::npos) << "not a Pharaoh line: " << line;
    }
    EXPECT_EQ(lines, 2);
    EXPECT_EQ(test::runCommand(test::cliPath() + " align " + toy + " --src " + dir + "/src.txt --tgt " + dir
                      + "/gold.txt",
                  &out),
        1)
        << "a target that is not in the vocabulary must fail: " << out;
}

} // namespace
} // namespace attn
