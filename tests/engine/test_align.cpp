// SPDX-License-Identifier: MIT
// Word alignment: hard alignment, symmetrisation, sub-word merging, Pharaoh / NAACL gold and AER (Och & Ney), on
// hand-computed cases and on the 37-sentence Hansards gold set.
#include "align/alignment.h"
#include "align/word_pieces.h"
#include "core/error.h"
#include "support/shared_data.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace attn {
namespace {

TEST(Align, HandComputedPrecisionRecallAer)
{
    // S = {0-0, 1-1}, P = S + {2-1}; A = {0-0, 2-1, 1-2}: |A|=3, |S|=2, |A∩S|=1, |A∩P|=2.
    const GoldAlignment g = parsePharaohLine("0-0 1-1 2?1", "case");
    EXPECT_EQ(g.sure, (Links { { 0, 0 }, { 1, 1 } }));
    EXPECT_EQ(g.possible, (Links { { 0, 0 }, { 1, 1 }, { 2, 1 } }));
    const AlignmentScore s = scoreAlignments({ Links { { 0, 0 }, { 2, 1 }, { 1, 2 } } }, { g });
    EXPECT_EQ(s.predicted, 3);
    EXPECT_EQ(s.hitsSure, 1);
    EXPECT_EQ(s.hitsPossible, 2);
    EXPECT_DOUBLE_EQ(s.precision, 2.0 / 3.0);
    EXPECT_DOUBLE_EQ(s.recall, 0.5);
    EXPECT_DOUBLE_EQ(s.aer, 1.0 - 3.0 / 5.0);
    // The perfect alignment A = S has AER 0; A = P (all possible links) has precision 1 and AER 0 too.
    EXPECT_DOUBLE_EQ(scoreAlignments({ g.sure }, { g }).aer, 0.0);
    EXPECT_DOUBLE_EQ(scoreAlignments({ g.possible }, { g }).precision, 1.0);
    EXPECT_THROW(scoreAlignments({}, { g }), Error);
    EXPECT_THROW(parsePharaohLine("0-0 x-1", "bad"), Error);
}

TEST(Align, ArgmaxAndSymmetrisation)
{
    const Tensor att({ 2, 3 }, { 0.1f, 0.7f, 0.2f, 0.5f, 0.4f, 0.1f });
    EXPECT_EQ(argmaxPerTarget(att), (Links { { 1, 0 }, { 0, 1 } }));
    EXPECT_EQ(argmaxPerSource(att), (Links { { 0, 1 }, { 1, 0 }, { 2, 0 } }));
    EXPECT_EQ(intersectLinks(argmaxPerTarget(att), argmaxPerSource(att)), (Links { { 1, 0 }, { 0, 1 } }));
    // Intersection {0-0, 1-1}; 2-1 and 1-2 touch 1-1 diagonally/adjacently and cover unaligned words.
    const Links a { { 0, 0 }, { 1, 1 }, { 2, 1 } }, b { { 0, 0 }, { 1, 1 }, { 1, 2 } };
    EXPECT_EQ(growDiag(a, b, false), (Links { { 0, 0 }, { 1, 1 }, { 1, 2 }, { 2, 1 } }));
    // 3-3 is not next to the intersection: only grow-diag-final adds it.
    const Links c { { 0, 0 }, { 3, 3 } }, d { { 0, 0 } };
    EXPECT_EQ(growDiag(c, d, false), (Links { { 0, 0 } }));
    EXPECT_EQ(growDiag(c, d, true), (Links { { 0, 0 }, { 3, 3 } }));
    EXPECT_EQ(formatPharaoh(Links { { 2, 1 }, { 0, 0 } }), "0-0 2-1");
}

TEST(Align, SubwordPiecesMergeIntoWords)
{
    EXPECT_EQ(wordIndexOfPieces({ "\xE2\x96\x81The",
                                    "\xE2\x96\x81"
                                    "cat",
                                    "s", "</s>" },
                  { false, false, false, true }),
        (std::vector<int64_t> { 0, 1, 1, -1 }));
    EXPECT_EQ(wordIndexOfPieces({ "[CLS]", "un", "##believ", "##able", "!" }, { true, false, false, false, false }),
        (std::vector<int64_t> { -1, 0, 0, 0, 1 }));
    EXPECT_EQ(wordIndexOfPieces({ "Hello", "\xC4\xA0wor", "ld" }, {}), (std::vector<int64_t> { 0, 1, 1 }));
    // Target pieces {0, 0, 1}, source pieces {0, 1, 1, special}: sum over source pieces, mean over target pieces.
    const Tensor p({ 3, 4 }, { 0.1f, 0.2f, 0.3f, 0.4f, 0.3f, 0.2f, 0.1f, 0.4f, 0.0f, 0.5f, 0.5f, 0.0f });
    const Tensor w = wordAttention(p, { 0, 0, 1 }, { 0, 1, 1, -1 });
    ASSERT_EQ(w.shape(), (Shape { 2, 2 }));
    EXPECT_NEAR(w.at({ 0, 0 }), 0.2f, 1e-7);
    EXPECT_NEAR(w.at({ 0, 1 }), 0.4f, 1e-7);
    EXPECT_NEAR(w.at({ 1, 0 }), 0.0f, 1e-7);
    EXPECT_NEAR(w.at({ 1, 1 }), 1.0f, 1e-7);
}

TEST(Align, NaaclGoldFormat)
{
    const std::string path = test::makeTempDir("align") + "/gold.naacl";
    std::ofstream(path) << "1 1 1 S\n1 2 3 P\n1 0 2 S\n3 1 1\n";
    const std::vector<GoldAlignment> g = readGoldAlignments(path);
    ASSERT_EQ(g.size(), 3u); // sentences 1..3; sentence 2 has no links
    EXPECT_EQ(g[0].sure, (Links { { 0, 0 } }));
    EXPECT_EQ(g[0].possible, (Links { { 0, 0 }, { 1, 2 } })); // the NULL link 0-2 is dropped
    EXPECT_TRUE(g[1].possible.empty());
    EXPECT_EQ(g[2].sure, (Links { { 0, 0 } }));
}

std::vector<std::string> lines(const std::string& path)
{
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);)
        out.push_back(l);
    return out;
}

// The diagonal i-i (i < min(|f|, |e|)) on the 37 Hansards sentences, scored by the library and recounted here from
// the raw text. Independently (numpy, from the same files): |A| = 642, |S| = 338, |A∩S| = 67, |A∩P| = 215,
// so AER = 1 - 282/980 = 0.71224...
TEST(Align, HansardsDiagonalAer)
{
    const std::string dir = "models/align-gold-hansards-fr-en/";
    const auto f = lines(test::sharedPath(dir + "hansards37.f")), e = lines(test::sharedPath(dir + "hansards37.e"));
    const auto a = lines(test::sharedPath(dir + "hansards37.a"));
    const std::vector<GoldAlignment> gold = readGoldAlignments(test::sharedPath(dir + "hansards37.a"));
    ASSERT_EQ(gold.size(), 37u);
    ASSERT_EQ(f.size(), 37u);
    std::vector<Links> diagonal;
    int64_t predicted = 0, sure = 0, hitSure = 0, hitPossible = 0;
    auto count = [](const std::string& s) {
        std::istringstream in(s);
        int64_t n = 0;
        for (std::string w; in >> w;)
            ++n;
        return n;
    };
    for (size_t k = 0; k < 37; ++k) {
        const int64_t n = std::min(count(f[k]), count(e[k]));
        Links d;
        for (int64_t i = 0; i < n; ++i)
            d.insert({ i, i });
        diagonal.push_back(d);
        predicted += n;
        std::istringstream items(a[k]);
        for (std::string item; items >> item;) {
            const bool isSure = item.find('-') != std::string::npos;
            const size_t sep = item.find_first_of("-?");
            const int64_t i = std::stoll(item.substr(0, sep)), j = std::stoll(item.substr(sep + 1));
            sure += isSure;
            const bool onDiagonal = i == j && i < n;
            hitSure += isSure && onDiagonal;
            hitPossible += onDiagonal;
        }
    }
    const AlignmentScore s = scoreAlignments(diagonal, gold);
    EXPECT_EQ(s.predicted, predicted);
    EXPECT_EQ(s.sure, sure);
    EXPECT_EQ(s.hitsSure, hitSure);
    EXPECT_EQ(s.hitsPossible, hitPossible);
    EXPECT_EQ(s.predicted, 642);
    EXPECT_EQ(s.sure, 338);
    EXPECT_EQ(s.hitsSure, 67);
    EXPECT_EQ(s.hitsPossible, 215);
    EXPECT_NEAR(s.aer, 1.0 - 282.0 / 980.0, 1e-12);
    EXPECT_NEAR(s.precision, 215.0 / 642.0, 1e-12);
    EXPECT_NEAR(s.recall, 67.0 / 338.0, 1e-12);
}

} // namespace
} // namespace attn
