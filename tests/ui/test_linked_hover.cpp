// SPDX-License-Identifier: MIT
// Linked hover (issue 21) on stories260K: the token under the mouse in the chips, the heatmap, the head view or the
// model view is highlighted in all of them; the head view shows what a hovered query attends to and what attends to a
// hovered key, and a click keeps it. The model view opens a head in the head view.
#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"
#include "widgets/attention_lines.h"
#include "widgets/head_lines_view.h"
#include "widgets/model_view.h"
#include "widgets/token_chips_view.h"
#include "widgets/token_link.h"

#include "core/tensor.h"

#include <QPainter>
#include <QScrollArea>
#include <QTabWidget>
#include <QTest>

#include <qcustomplot.h>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

class LinkedHover : public ::testing::Test {
protected:
    void SetUp() override
    {
        window.resize(1280, 800);
        window.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
        window.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
        QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, 30000);
        window.setInputText("Tom had a red ball. Tom gave the ball to Sue.");
        QTRY_VERIFY_WITH_TIMEOUT(window.snapshot() != nullptr, 30000);
        n = window.snapshot()->numKeys();
        ASSERT_GT(n, 8);
    }
    void showTab(QWidget* inside)
    {
        for (int i = 0; i < window.tabs()->count(); ++i)
            if (window.tabs()->widget(i)->isAncestorOf(inside) || window.tabs()->widget(i) == inside)
                window.tabs()->setCurrentIndex(i);
        QTest::qWait(50);
    }

    MainWindow window;
    int64_t n = 0;
};

TEST_F(LinkedHover, ChipHeatmapAndHeadViewHighlightTheSameToken)
{
    TokenLink* link = window.tokenLink();
    HeatmapView* heatmap = window.heatmapView();
    showTab(heatmap);
    heatmap->flushRedraw();
    // A chip: self-attention, so the token is both a query and a key.
    TokenChipsView* chips = window.tokenChips();
    QTest::mouseMove(chips, chips->chipRect(3).center());
    QTRY_COMPARE(link->hovered(), (LinkedTokens { 3, 3 }));
    EXPECT_TRUE(chips->isHighlighted(3));
    EXPECT_FALSE(chips->isHighlighted(4));
    EXPECT_EQ(heatmap->linkedBands(), (std::pair<int64_t, int64_t> { 3, 3 }));
    EXPECT_EQ(window.linesView()->focus(), (LinesFocus { 3, -1 }));

    // A heatmap cell: its query and its key.
    QTest::mouseMove(heatmap->plot(), heatmap->plot()->mapFrom(heatmap, heatmap->cellCenter(7, 2)));
    QTRY_COMPARE(link->hovered(), (LinkedTokens { 7, 2 }));
    EXPECT_EQ(heatmap->linkedBands(), (std::pair<int64_t, int64_t> { 7, 2 }));
    EXPECT_TRUE(chips->isHighlighted(7));
    EXPECT_TRUE(chips->isHighlighted(2));
    EXPECT_FALSE(chips->isHighlighted(3));
    EXPECT_EQ(window.linesView()->focus(), (LinesFocus { 7, -1 }));
}

TEST_F(LinkedHover, HeadViewHoversAndPinsBothDirections)
{
    HeadLinesView* lines = window.linesView();
    showTab(lines);
    auto* area = qobject_cast<QScrollArea*>(window.tabs()->currentWidget());
    ASSERT_NE(area, nullptr);
    QTRY_VERIFY_WITH_TIMEOUT(lines->linesReady(), 10000);
    // Rows are 20 px from y = 44; the query column spans x 10..140, the key column 400..530.
    const auto rowY = [](int64_t i) { return 44 + static_cast<int>(i) * 20 + 10; };
    QTest::mouseMove(lines, QPoint(80, rowY(5)));
    QTRY_COMPARE(window.tokenLink()->hovered(), (LinkedTokens { 5, -1 }));
    EXPECT_EQ(lines->focus(), (LinesFocus { 5, -1 })); // attends to
    EXPECT_EQ(window.heatmapView()->linkedBands(), (std::pair<int64_t, int64_t> { 5, -1 }));
    QTRY_VERIFY_WITH_TIMEOUT(lines->linesReady(), 10000);
    QTest::mouseMove(lines, QPoint(460, rowY(2)));
    QTRY_COMPARE(window.tokenLink()->hovered(), (LinkedTokens { -1, 2 }));
    EXPECT_EQ(lines->focus(), (LinesFocus { -1, 2 })); // attended by
    EXPECT_TRUE(window.tokenChips()->isHighlighted(2));
    QTRY_VERIFY_WITH_TIMEOUT(lines->linesReady(), 10000);
    // A click keeps the key's lines once the mouse has gone.
    QTest::mouseClick(lines, Qt::LeftButton, {}, QPoint(460, rowY(2)));
    QTest::mouseMove(lines, QPoint(270, 20)); // between the columns, above the tokens: nothing hovered
    QTRY_COMPARE(window.tokenLink()->hovered(), LinkedTokens {});
    EXPECT_EQ(lines->focus(), (LinesFocus { -1, 2 }));
    QTest::mouseClick(lines, Qt::LeftButton, {}, QPoint(460, rowY(2))); // again: every line
    QTest::mouseMove(lines, QPoint(270, 20));
    EXPECT_EQ(lines->focus(), LinesFocus {});
}

TEST_F(LinkedHover, ModelViewOpensAHeadInTheHeadView)
{
    ModelView* model = window.modelView();
    showTab(model);
    QTRY_VERIFY_WITH_TIMEOUT(model->linesReady(), 10000);
    const int64_t layer = window.snapshot()->numLayers() - 1, head = 1;
    // Every head's lines are drawn in its own colour inside its cell.
    const QImage image = model->grab().toImage();
    const QRect cell = model->cellRect(layer, head);
    const QColor color = HeadLinesView::headColor(head);
    int coloured = 0;
    for (int y = cell.top(); y <= cell.bottom(); ++y)
        for (int x = cell.left(); x <= cell.right(); ++x) {
            const QColor p = image.pixelColor(x, y);
            coloured += std::abs(p.red() - color.red()) + std::abs(p.green() - color.green())
                        + std::abs(p.blue() - color.blue())
                    < 120
                ? 1
                : 0;
        }
    EXPECT_GT(coloured, 20);
    QTest::mouseClick(model, Qt::LeftButton, {}, cell.center());
    EXPECT_TRUE(window.tabs()->currentWidget()->isAncestorOf(window.linesView()));
    EXPECT_EQ(window.linesView()->layer(), layer);
    EXPECT_EQ(window.linesView()->heads(), (std::set<int64_t> { head }));
    // The keyboard: arrows move the current cell (within the grid), Enter opens it.
    window.setCurrentHead(0, 0);
    showTab(model);
    model->setFocus();
    for (Qt::Key key :
        { Qt::Key_Right, Qt::Key_Right, Qt::Key_Down, Qt::Key_Left, Qt::Key_Up, Qt::Key_Up, Qt::Key_Down })
        QTest::keyClick(model, key);
    QTest::keyClick(model, Qt::Key_Return);
    EXPECT_TRUE(window.tabs()->currentWidget()->isAncestorOf(window.linesView()));
    EXPECT_EQ(window.linesView()->layer(), 1);
    EXPECT_EQ(window.linesView()->heads(), (std::set<int64_t> { 1 }));
}

/// Pixels of `image` within 3 px of (x, y) that are not transparent.
int inkNear(const QImage& image, int x, int y)
{
    int ink = 0;
    for (int dy = -3; dy <= 3; ++dy)
        for (int dx = -3; dx <= 3; ++dx)
            ink += qAlpha(image.pixel(x + dx, y + dy)) > 0 ? 1 : 0;
    return ink;
}

TEST(LinkedHoverDecode, ChipsAndHeatmapOfTheDecodeTabShareTheHoveredPosition)
{
    DecodePanel panel;
    panel.resize(1280, 800);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    panel.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
    DecodeController& c = *panel.controller();
    ASSERT_TRUE(QTest::qWaitFor([&] { return c.info() != nullptr; }, 60000));
    c.promptIds({ 1, 403, 407, 261, 378 });
    ASSERT_TRUE(QTest::qWaitFor([&] { return c.steps().size() == 5; }, 60000));
    ASSERT_TRUE(QTest::qWaitFor(
        [&] {
            panel.flushRedraw();
            return panel.heatmapPositions() == 5;
        },
        60000));
    panel.heatmap()->flushRedraw();
    TokenChipsView* chips = panel.tokenChips();
    QTest::mouseMove(chips, chips->chipRect(2).center());
    QTRY_COMPARE(panel.tokenLink()->hovered(), (LinkedTokens { 2, 2 }));
    EXPECT_TRUE(chips->isHighlighted(2));
    EXPECT_FALSE(chips->isHighlighted(3));
    EXPECT_EQ(panel.heatmap()->linkedBands(), (std::pair<int64_t, int64_t> { 2, 2 }));
    HeatmapView* heatmap = panel.heatmap();
    QTest::mouseMove(heatmap->plot(), heatmap->plot()->mapFrom(heatmap, heatmap->cellCenter(4, 1)));
    QTRY_COMPARE(panel.tokenLink()->hovered(), (LinkedTokens { 4, 1 }));
    EXPECT_TRUE(chips->isHighlighted(4));
    EXPECT_TRUE(chips->isHighlighted(1));
}

TEST(AttentionLines, AttendedByDrawsOnlyTheLinesIntoTheKey)
{
    // Three tokens, uniform attention: every query sees every key.
    auto rows = std::make_shared<const Tensor>(Shape { 3, 3 }, std::vector<float>(9, 1.0f / 3));
    LinesRequest r;
    r.numQueries = r.numKeys = 3;
    r.matrices.push_back({ [rows](int64_t q0, int64_t q1) {
                              return std::make_shared<const Tensor>(Shape { q1 - q0, 3 },
                                  std::vector<float>(rows->data() + q0 * 3, rows->data() + q1 * 3));
                          },
        Qt::black });
    r.layout = { 10, 190, 0, 40 };
    r.area = QRectF(0, 0, 200, 120);
    const auto draw = [&](LinesFocus focus) {
        QImage image(200, 120, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::transparent);
        QPainter p(&image);
        r.focus = focus;
        EXPECT_TRUE(drawAttentionLines(p, r));
        return image;
    };
    const QImage attendedBy = draw({ -1, 1 });
    EXPECT_GT(inkNear(attendedBy, 188, 60), 0); // key 1
    EXPECT_EQ(inkNear(attendedBy, 188, 20), 0); // keys 0 and 2 get no line
    EXPECT_EQ(inkNear(attendedBy, 188, 100), 0);
    for (int y : { 20, 60, 100 }) // every query attends to it
        EXPECT_GT(inkNear(attendedBy, 12, y), 0);
    const QImage attendsTo = draw({ 2, -1 });
    EXPECT_GT(inkNear(attendsTo, 12, 100), 0); // from query 2 alone
    EXPECT_EQ(inkNear(attendsTo, 12, 20), 0);
    for (int y : { 20, 60, 100 })
        EXPECT_GT(inkNear(attendsTo, 188, y), 0);
    // Cancelled at once: nothing drawn, and it says so.
    QImage image(200, 120, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&image);
    r.focus = {};
    EXPECT_FALSE(drawAttentionLines(p, r, [] { return true; }));
}

// Issue 22: a row draws its strongest kMaxLinesPerRow lines, not one per key (a 512-token export drew 500,000 lines).
TEST(AttentionLines, EachRowDrawsAtMostItsStrongestLines)
{
    constexpr int64_t keys = 80;
    // One query: keys 0..79 with weights rising with the key (20..99, normalized: hairlines), so the strongest 32 are
    // keys 48..79.
    std::vector<float> weights(keys);
    for (int64_t j = 0; j < keys; ++j)
        weights[static_cast<size_t>(j)] = static_cast<float>(j + 20) / 4760.0f;
    auto row = std::make_shared<const Tensor>(Shape { 1, keys }, weights);
    LinesRequest r;
    r.numQueries = 1;
    r.numKeys = keys;
    r.matrices.push_back({ [row](int64_t, int64_t) { return row; }, Qt::black });
    r.layout = { 10, 190, 0, 10 * static_cast<double>(keys), 10 }; // query row 800 px tall, key rows 10 px
    r.area = QRectF(0, 0, 200, 10 * keys);
    QImage image(200, 10 * keys, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    {
        QPainter p(&image);
        EXPECT_TRUE(drawAttentionLines(p, r));
    }
    int drawn = 0;
    for (int64_t j = 0; j < keys; ++j) {
        const bool ink = inkNear(image, 188, static_cast<int>(r.layout.keyY(j))) > 0;
        drawn += ink;
        if (j >= keys - kMaxLinesPerRow) {
            EXPECT_TRUE(ink) << "strong key " << j;
        }
    }
    EXPECT_EQ(drawn, kMaxLinesPerRow);
}

} // namespace
} // namespace attn::ui
