// SPDX-License-Identifier: MIT
// The Mechanisms tab's figures: File > Export figure draws every panel of the page in front (all three maps of Exact
// vs variant, not the one of its own tabs in front), and any page exports its own figure while another is in front.
// Before, the tab's figure was always the first page's exact map beside whichever of its tabs was in front, at the
// screen's size, whatever page the user looked at.
#include "core/error.h"
#include "export/export_menu.h"
#include "main_window.h"
#include "mechanisms/mechanisms_figure.h"
#include "mechanisms/mechanisms_panel.h"
#include "mechanisms_test_support.h"
#include "support/shared_data.h"

#include <QImage>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <string>

namespace attn::ui {
namespace {

constexpr int kExactVsVariant = 0;
constexpr int kPositions = 5;

/// Share of the pixels of `rect` in `image` that are not white (a panel drawn there covers much of it).
double inkShare(const QImage& image, const QRect& rect)
{
    int64_t ink = 0;
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x)
            ink += image.pixel(x, y) != qRgb(255, 255, 255) ? 1 : 0;
    return static_cast<double>(ink) / (static_cast<double>(rect.width()) * rect.height());
}

/// The PNG at `path` is the figure of `panels` panels: its size, the title written, and each panel drawn in its own
/// cell, no two alike.
void expectFigureOf(const QString& path, qsizetype panels)
{
    const QImage image(path);
    ASSERT_FALSE(image.isNull()) << path.toStdString();
    ASSERT_EQ(image.size(), MechanismsFigure::figureSize(panels)) << path.toStdString();
    const QRect title(0, 0, image.width(), MechanismsFigure::kTitleHeight);
    EXPECT_GT(inkShare(image, title), 0.01) << path.toStdString() << ": no title";
    std::vector<QImage> cells;
    for (qsizetype i = 0; i < panels; ++i) {
        const QRect cell(
            QPoint(static_cast<int>(i % MechanismsFigure::kColumns) * MechanismsFigure::kPanel.width(),
                MechanismsFigure::kTitleHeight
                    + static_cast<int>(i / MechanismsFigure::kColumns) * MechanismsFigure::kPanel.height()),
            MechanismsFigure::kPanel);
        // A curve's cell is mostly white; an empty cell has no ink at all.
        EXPECT_GT(inkShare(image, cell), 0.03) << path.toStdString() << ": panel " << i << " is blank";
        cells.push_back(image.copy(cell));
        for (size_t j = 0; j + 1 < cells.size(); ++j)
            EXPECT_NE(cells[j], cells.back()) << path.toStdString() << ": panels " << j << " and " << i << " alike";
    }
}

TEST(MechanismsFigure, ExportDrawsEveryPanelOfTheAskedPageWhetherInFrontOrNot)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(test::showStoriesHeadOnTheTab(window));
    MechanismsPanel& panel = *window.mechanismsPanel();
    panel.pages()->setCurrentIndex(kExactVsVariant);
    QTest::qWait(100);
    auto* figure = panel.findChild<MechanismsFigure*>();
    ASSERT_NE(figure, nullptr);
    auto* menu = window.findChild<ExportMenu*>("exportMenu");
    ASSERT_NE(menu, nullptr);
    // AS_LAYOUT_SCREENSHOTS=DIR keeps the figures there, to be looked at.
    const QString shots = qEnvironmentVariable("AS_LAYOUT_SCREENSHOTS");
    const QString dir = shots.isEmpty() ? QString::fromStdString(test::makeTempDir("mechanisms-figure")) : shots;

    // File > Export figure on the first page: exact, variant and difference, though only the variant's tab is in front.
    menu->exportFigure(dir + "/front.png", 96);
    ASSERT_EQ(figure->panels().size(), 3);
    EXPECT_TRUE(figure->title().startsWith(panel.pages()->tabText(kExactVsVariant))) << figure->title().toStdString();
    EXPECT_TRUE(figure->title().contains("window:4")) << figure->title().toStdString();
    expectFigureOf(dir + "/front.png", 3);

    // The Positions page behind it: its four tables (stories260K has no learned one) and the RoPE decay curve.
    ASSERT_EQ(MechanismsFigure::panelsOf(*panel.pages()->widget(kPositions)).size(), 5);
    panel.exportPageFigure(kPositions, dir + "/positions.png");
    EXPECT_EQ(panel.pages()->currentIndex(), kExactVsVariant); // the page in front stays
    expectFigureOf(dir + "/positions.png", 5);
    // ... and File > Export figure still draws the page in front.
    menu->exportFigure(dir + "/front-again.png", 96);
    EXPECT_EQ(QImage(dir + "/front-again.png").size(), MechanismsFigure::figureSize(3));

    // Brought to front, the Positions page is what File > Export figure draws.
    panel.pages()->setCurrentIndex(kPositions);
    QTest::qWait(100);
    menu->exportFigure(dir + "/positions-front.png", 96);
    EXPECT_TRUE(figure->title().startsWith(panel.pages()->tabText(kPositions))) << figure->title().toStdString();
    expectFigureOf(dir + "/positions-front.png", 5);

    // A page that does not exist is refused with the file named.
    try {
        panel.exportPageFigure(panel.pages()->count(), dir + "/none.png");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("none.png"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace attn::ui
