// SPDX-License-Identifier: MIT
// The two-part controls row: lead and tail side by side where both fit at their hints, else the tail on a second
// line, right-aligned, at its hint (not squeezed); the row asks for the second line's height then.
#include "widgets/two_line_row.h"

#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QTest>
#include <QVBoxLayout>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

TEST(TwoLineRow, TheTailGoesUnderTheLeadRatherThanBeSqueezed)
{
    QWidget window;
    auto* row = new QWidget;
    auto* lead = new QWidget;
    auto* leadRow = new QHBoxLayout(lead);
    leadRow->setContentsMargins(0, 0, 0, 0);
    for (const char* text : { "Colormap options", "Scale options", "Exclude first token" })
        leadRow->addWidget(new QPushButton(text));
    leadRow->addStretch(1);
    auto* tail = new QWidget;
    auto* tailRow = new QHBoxLayout(tail);
    tailRow->setContentsMargins(0, 0, 0, 0);
    auto* find = new QLineEdit;
    find->setFixedWidth(150);
    tailRow->addWidget(find);
    tailRow->addWidget(new QPushButton("Reset zoom"));
    auto* layout = new TwoLineRow(row);
    layout->setLead(lead);
    layout->setTail(tail);
    auto* column = new QVBoxLayout(&window);
    column->addWidget(row);
    column->addStretch(1);
    const int both = lead->sizeHint().width() + layout->spacing() + tail->sizeHint().width();

    window.resize(both + 40, 200);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    EXPECT_FALSE(layout->wraps(row->width()));
    EXPECT_EQ(tail->y(), lead->y()) << "one line where both fit";
    EXPECT_EQ(tail->geometry().right(), row->rect().right()) << "the tail at the right";
    EXPECT_EQ(row->height(), std::max(lead->sizeHint().height(), tail->sizeHint().height()));

    window.resize(both - 40, 200);
    QTRY_VERIFY(layout->wraps(row->width()));
    QTRY_VERIFY(tail->y() >= lead->geometry().bottom());
    EXPECT_EQ(find->width(), 150) << "the find box keeps its width";
    EXPECT_EQ(tail->width(), tail->sizeHint().width());
    EXPECT_EQ(tail->geometry().right(), row->rect().right()) << "right-aligned on its own line";
    EXPECT_GE(row->height(), lead->sizeHint().height() + tail->sizeHint().height()) << "the row grew a line";
    EXPECT_LE(
        row->minimumSizeHint().width(), std::max(lead->minimumSizeHint().width(), tail->minimumSizeHint().width()));
}

} // namespace
} // namespace attn::ui
