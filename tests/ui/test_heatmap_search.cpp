// SPDX-License-Identifier: MIT
// Find by token text in the heatmap, for a long input and a short one: Ctrl+F reaches the find box, typing goes to
// the first match, Enter and F3 go to each next match in order (Shift+F3 back, both wrapping), each zooming the view
// around that token's row and column (never past the matrix's last row or column), with "i of n" beside the box; a
// new input leaves no band on the old one's tokens.
#include "attention_source/query_key_store.h"
#include "plots/heatmap_search.h"
#include "plots/heatmap_view.h"
#include "support/tile_cases.h"

#include <qcustomplot.h>

#include <QApplication>
#include <QLabel>
#include <QLineEdit>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

namespace attn::ui {
namespace {

constexpr int64_t kTokens = 1200;
const std::vector<int64_t> kCats { 40, 333, 334, 777, 1180 };

/// A causal head over `tokens` tokens of a short sentence repeated, with " Cat" at the positions `cats`.
SnapshotPtr snapshotWithCats(int64_t tokens, const std::vector<int64_t>& cats)
{
    AttentionOptions causal;
    causal.mask.causal = true;
    std::vector<Tensor> q { test::normalTensor({ 1, tokens, 16 }, 3) }, k { test::normalTensor({ 1, tokens, 16 }, 4) };
    auto source = std::make_shared<const AttentionSource>(std::make_shared<const OwnedQueryKeys>(q, k), causal);
    const char* words[] = { " the", " dog", " sat", " on", " a", " mat", "." };
    std::vector<TokenChip> chips;
    for (int64_t i = 0; i < tokens; ++i) {
        const bool cat = std::find(cats.begin(), cats.end(), i) != cats.end();
        chips.push_back({ cat ? " Cat" : words[i % 7], i, false });
    }
    return std::make_shared<const AttentionSnapshot>(chips, source);
}

/// The view shows only cells of the matrix: nothing before the first token or past the last.
void expectInsideTheMatrix(const HeatmapView& view)
{
    const auto n = static_cast<double>(view.snapshot()->numKeys());
    for (const QCPAxis* axis : { view.plot()->xAxis, view.plot()->yAxis }) {
        EXPECT_GE(axis->range().lower, -0.5 - 1e-9);
        EXPECT_LE(axis->range().upper, n - 0.5 + 1e-9);
    }
}

TEST(HeatmapSearch, FindingATokenInALongInputGoesToEachMatchInOrder)
{
    HeatmapView view;
    view.resize(1024, 700);
    view.show();
    view.setSnapshot(snapshotWithCats(kTokens, kCats));
    view.setHead(0, 0);
    view.flushRedraw();
    QApplication::setActiveWindow(&view);
    ASSERT_TRUE(QTest::qWaitForWindowActive(&view));
    auto* find = view.findChild<QLineEdit*>("heatmapFind");
    auto* count = view.findChild<QLabel*>("heatmapFindCount");
    ASSERT_NE(find, nullptr);
    ASSERT_NE(count, nullptr);
    ASSERT_TRUE(find->isVisible());
    const double wholeWidth = view.plot()->xAxis->range().size();

    auto* jump = view.findChild<QWidget*>("heatmapJump"); // the focus elsewhere in the view
    ASSERT_NE(jump, nullptr);
    jump->setFocus();
    QTest::keyClick(jump, Qt::Key_F, Qt::ControlModifier);
    EXPECT_TRUE(find->hasFocus());

    const auto expectAt = [&](size_t match) {
        SCOPED_TRACE("match " + std::to_string(match));
        const auto at = static_cast<double>(kCats[match]);
        EXPECT_EQ(count->text(), QString("%1 of %2").arg(match + 1).arg(kCats.size()));
        EXPECT_EQ(view.search().bands(), std::pair(kCats[match], kCats[match]));
        expectInsideTheMatrix(view);
        if (match + 1 < kCats.size()) { // centred on the token
            EXPECT_NEAR(view.plot()->xAxis->range().center(), at, 1e-9);
            EXPECT_NEAR(view.plot()->yAxis->range().center(), at, 1e-9);
        } else { // 20 tokens from the end: the window ends with the last row and column instead
            EXPECT_NEAR(view.plot()->xAxis->range().upper, kTokens - 0.5, 1e-9);
            EXPECT_NEAR(view.plot()->yAxis->range().upper, kTokens - 0.5, 1e-9);
            EXPECT_GT(view.plot()->yAxis->range().upper - at, 10);
        }
        EXPECT_LT(view.plot()->xAxis->range().size(), wholeWidth / 10); // zoomed in to the token
        view.flushRedraw();
        EXPECT_EQ(view.matrix().block, 1); // drawn token by token there
        EXPECT_LE(view.matrix().firstCol, kCats[match]);
        EXPECT_GT(view.matrix().firstCol + view.matrix().cols, kCats[match]);
    };
    QTest::keyClicks(find, "cAT"); // any case, the token's leading space aside
    expectAt(0);
    QTest::keyClick(find, Qt::Key_Return);
    expectAt(1);
    QTest::keyClick(find, Qt::Key_F3);
    expectAt(2);
    QTest::keyClick(find, Qt::Key_Enter);
    expectAt(3);
    QTest::keyClick(find, Qt::Key_F3);
    expectAt(4);
    QTest::keyClick(find, Qt::Key_Return); // wraps to the first
    expectAt(0);
    QTest::keyClick(find, Qt::Key_F3, Qt::ShiftModifier); // and back to the last
    expectAt(4);
    if (const char* dir = std::getenv("AS_HEATMAP_SEARCH_SCREENSHOTS")) // for a person to look at
        for (const QSize size : { QSize(1024, 700), QSize(1280, 800) }) {
            view.resize(size);
            view.flushRedraw();
            view.grab().save(QString("%1/heatmap-search-%2x%3.png").arg(dir).arg(size.width()).arg(size.height()));
        }

    const QCPRange before = view.plot()->xAxis->range();
    find->setText("zebra");
    EXPECT_EQ(count->text(), "no match");
    EXPECT_EQ(view.plot()->xAxis->range(), before); // nowhere to go: the view stays
    find->clear();
    EXPECT_EQ(count->text(), "");
}

TEST(HeatmapSearch, AShortInputHasTheFindBoxAndANewRunClearsTheOldBands)
{
    HeatmapView view;
    view.resize(1024, 700);
    view.show();
    view.setSnapshot(snapshotWithCats(40, { 5, 38 }));
    view.setHead(0, 0);
    view.flushRedraw();
    QApplication::setActiveWindow(&view);
    ASSERT_TRUE(QTest::qWaitForWindowActive(&view));
    EXPECT_FALSE(view.findChild<QWidget*>("heatmapMinimap")->isVisible()); // short: no side panel
    auto* find = view.findChild<QLineEdit*>("heatmapFind");
    auto* count = view.findChild<QLabel*>("heatmapFindCount");
    ASSERT_TRUE(find->isVisible());
    view.plot()->setFocus();
    QTest::keyClick(view.plot(), Qt::Key_F, Qt::ControlModifier);
    EXPECT_TRUE(find->hasFocus());

    QTest::keyClicks(find, "cat");
    EXPECT_EQ(count->text(), "1 of 2");
    EXPECT_EQ(view.search().bands(), (std::pair<int64_t, int64_t>(5, 5)));
    expectInsideTheMatrix(view);
    QTest::keyClick(find, Qt::Key_F3);
    EXPECT_EQ(count->text(), "2 of 2");
    EXPECT_EQ(view.search().bands(), (std::pair<int64_t, int64_t>(38, 38)));
    expectInsideTheMatrix(view); // 40 tokens are fewer than the zoom's 48: all of them stay in view
    EXPECT_NEAR(view.plot()->yAxis->range().size(), 40, 1e-9);
    if (const char* dir = std::getenv("AS_HEATMAP_SEARCH_SCREENSHOTS"))
        for (const QSize size : { QSize(1024, 700), QSize(1280, 800) }) {
            view.resize(size);
            view.flushRedraw();
            view.grab().save(QString("%1/heatmap-search-short-%2x%3.png").arg(dir).arg(size.width()).arg(size.height()));
        }

    // A new run: its own matches, counted, and no band left on the old input's token 38.
    view.setSnapshot(snapshotWithCats(30, { 2, 11, 12 }));
    view.flushRedraw();
    EXPECT_EQ(view.search().bands(), (std::pair<int64_t, int64_t>(-1, -1)));
    EXPECT_EQ(count->text(), "3 matches");
    QTest::keyClick(find, Qt::Key_F3); // from the new input's first
    EXPECT_EQ(count->text(), "1 of 3");
    EXPECT_EQ(view.search().bands(), (std::pair<int64_t, int64_t>(2, 2)));
}

} // namespace
} // namespace attn::ui
