// SPDX-License-Identifier: MIT
// Find by token text in the heatmap of a long input: Ctrl+F reaches the find box, typing goes to the first match,
// Enter and F3 go to each next match in order (Shift+F3 back, both wrapping), each zooming the view around that
// token's row and column, with "i of n" beside the box.
#include "attention_source/query_key_store.h"
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

SnapshotPtr snapshotWithCats()
{
    AttentionOptions causal;
    causal.mask.causal = true;
    std::vector<Tensor> q { test::normalTensor({ 1, kTokens, 16 }, 3) },
        k { test::normalTensor({ 1, kTokens, 16 }, 4) };
    auto source = std::make_shared<const AttentionSource>(std::make_shared<const OwnedQueryKeys>(q, k), causal);
    const char* words[] = { " the", " dog", " sat", " on", " a", " mat", "." };
    std::vector<TokenChip> chips;
    for (int64_t i = 0; i < kTokens; ++i) {
        const bool cat = std::find(kCats.begin(), kCats.end(), i) != kCats.end();
        chips.push_back({ cat ? " Cat" : words[i % 7], i, false });
    }
    return std::make_shared<const AttentionSnapshot>(chips, source);
}

TEST(HeatmapSearch, FindingATokenInALongInputGoesToEachMatchInOrder)
{
    HeatmapView view;
    view.resize(1024, 700);
    view.show();
    view.setSnapshot(snapshotWithCats());
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
        EXPECT_NEAR(view.plot()->xAxis->range().center(), at, 1e-9);
        EXPECT_NEAR(view.plot()->yAxis->range().center(), at, 1e-9);
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

} // namespace
} // namespace attn::ui
