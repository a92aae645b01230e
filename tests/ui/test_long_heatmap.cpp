// SPDX-License-Identifier: MIT
// The views on a source-backed snapshot (a long input, no matrix held): the heatmap draws an overview of blocks when
// zoomed out and the source's own tiles token by token once zoomed in, its labels follow the zoom, the minimap and
// "go to token" appear; the grid draws overview thumbnails; the head view and the statistics read through the source.
#include "core/error.h"
#include "export/figure_data.h"
#include "export/figure_export.h"
#include "export/figure_renderer.h"
#include "plots/heatmap_view.h"
#include "plots/stats_view.h"
#include "support/shared_data.h"
#include "support/tile_cases.h"
#include "widgets/head_grid_view.h"
#include "widgets/head_lines_view.h"

#include <qcustomplot.h>

#include <QFile>
#include <QFontMetrics>
#include <QImage>
#include <QSet>
#include <QSpinBox>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace attn::ui {
namespace {

constexpr int64_t kTokens = 600;

SnapshotPtr longSnapshot(int64_t tokens = kTokens)
{
    AttentionOptions causal;
    causal.mask.causal = true;
    std::vector<Tensor> q, k;
    for (uint32_t l = 0; l < 2; ++l) {
        q.push_back(test::normalTensor({ 2, tokens, 16 }, 10 + l));
        k.push_back(test::normalTensor({ 2, tokens, 16 }, 20 + l));
    }
    auto source = std::make_shared<const AttentionSource>(std::make_shared<const OwnedQueryKeys>(q, k), causal);
    std::vector<TokenChip> chips;
    for (int64_t i = 0; i < tokens; ++i)
        chips.push_back({ "t" + std::to_string(i), i, false });
    return std::make_shared<const AttentionSnapshot>(chips, source);
}

TEST(LongHeatmap, OverviewWhenZoomedOutTokensOfTheSourceWhenZoomedIn)
{
    const SnapshotPtr s = longSnapshot();
    ASSERT_FALSE(s->holdsMatrices());
    EXPECT_THROW(s->head(0, 0), Error);
    HeatmapView view;
    view.resize(900, 700);
    view.show();
    view.setSnapshot(s);
    view.setHead(1, 1);
    view.flushRedraw();
    // Zoomed out: one cell per 2 x 2 tokens (600 tokens over at most 512 cells), each its block's max.
    const HeatmapMatrix& overview = view.matrix();
    EXPECT_EQ(overview.block, 2);
    EXPECT_EQ(overview.rows, 300);
    const auto level = s->overview(1, 1)->levels.front();
    EXPECT_EQ(overview.at(10, 3), static_cast<double>(level.maxAt(10, 3)));
    EXPECT_TRUE(std::isnan(overview.at(3, 10))); // above the diagonal: no weight at all
    EXPECT_NE(view.findChild<QWidget*>("heatmapMinimap"), nullptr);
    EXPECT_TRUE(view.findChild<QWidget*>("heatmapMinimap")->isVisible());

    // Zoomed in to 30 x 30 tokens: the source's rows of that window, token by token.
    view.plot()->xAxis->setRange(99.5, 129.5);
    view.plot()->yAxis->setRange(199.5, 229.5);
    view.flushRedraw();
    const HeatmapMatrix& window = view.matrix();
    ASSERT_EQ(window.block, 1);
    EXPECT_EQ(window.firstRow, 200);
    EXPECT_EQ(window.firstCol, 100);
    ASSERT_EQ(window.rows, 30);
    const auto rows = s->rows(1, 1, 200, 230);
    for (int64_t i = 0; i < 30; ++i)
        for (int64_t j = 0; j < 30; ++j)
            ASSERT_EQ(window.at(i, j), static_cast<double>(rows->at({ i, 100 + j })));
    // Every key of the window is labelled once the zoom leaves room.
    EXPECT_EQ(view.plot()->xAxis->tickVector().size(), 30);
    EXPECT_NE(view.cellToolTip(220, 120).indexOf("weight: "), -1);

    // "Go to token" zooms around a position.
    auto* jump = view.findChild<QSpinBox*>("heatmapJump");
    ASSERT_NE(jump, nullptr);
    jump->setValue(500);
    emit jump->editingFinished();
    view.flushRedraw();
    EXPECT_EQ(view.matrix().block, 1);
    EXPECT_NEAR(view.plot()->xAxis->range().center(), 500.0, 1e-9);
}

TEST(LongHeatmap, TheOverviewsTitleFitsThePlotBesideTheMinimap)
{
    // 2,048 tokens: 4 x 4-token blocks. 700 px is the view beside the Model dock in a 1024 px window; the minimap
    // column leaves the plot ~560 px.
    HeatmapView view;
    view.resize(700, 500);
    view.show();
    view.setSnapshot(longSnapshot(2048));
    view.flushRedraw();
    ASSERT_EQ(view.matrix().block, 4);
    const QStringList lines = view.titleText().split('\n');
    ASSERT_EQ(lines.size(), 2) << view.titleText().toStdString();
    EXPECT_EQ(lines[1], "overview: max of 4×4-token blocks, zoom in for tokens");
    // On one line the title made the plot's minimum (its layout's) wider than the plot, so the window grew past a
    // 1024 px screen and the title was cut off.
    const QWidget* plot = view.plot(); // QCustomPlot's override is protected
    EXPECT_LE(plot->minimumSizeHint().width(), plot->width());
    EXPECT_LE(view.minimumSizeHint().width(), view.width());
    const QFontMetrics title(QFont(view.font().family(), 11, QFont::Bold)); // the title's font
    for (const QString& line : lines)
        EXPECT_LE(title.horizontalAdvance(line), view.plot()->width()) << line.toStdString();
}

TEST(LongHeatmap, WithADeriverNothingIsComputedWhereTheViewAsks)
{
    // The deriver stands for the engine thread: it only queues, and the test runs the queue when it chooses.
    const SnapshotPtr s = longSnapshot();
    std::vector<std::pair<std::function<void()>, std::function<void(const QString&)>>> queued;
    HeatmapView view;
    view.resize(900, 700);
    view.show();
    view.setDeriver([&](QObject*, std::function<void()> compute, std::function<void(const QString&)> done) {
        queued.emplace_back(std::move(compute), std::move(done));
    });
    view.setSnapshot(s);
    view.setHead(1, 1);
    view.flushRedraw();
    // Asked once, computed nowhere yet: nothing is drawn and the title says why.
    ASSERT_EQ(queued.size(), 1u);
    EXPECT_TRUE(view.isDeriving());
    EXPECT_EQ(s->cachedOverview(1, 1), nullptr);
    EXPECT_TRUE(view.matrix().values.empty());
    view.flushRedraw();
    EXPECT_EQ(queued.size(), 1u) << "a redraw while deriving asks again";
    queued[0].first();
    queued[0].second({});
    view.flushRedraw();
    EXPECT_FALSE(view.isDeriving());
    const HeatmapMatrix derived = view.matrix();
    HeatmapView direct; // no deriver: computed where asked, the reference
    direct.resize(900, 700);
    direct.setSnapshot(s);
    direct.setHead(1, 1);
    direct.flushRedraw();
    ASSERT_EQ(derived.values.size(), direct.matrix().values.size());
    EXPECT_EQ(derived.block, direct.matrix().block);
    for (size_t i = 0; i < derived.values.size(); ++i)
        ASSERT_TRUE(derived.values[i] == direct.matrix().values[i]
            || (std::isnan(derived.values[i]) && std::isnan(direct.matrix().values[i])));

    // Another head: its thumbnail is at hand now for head (1, 1) only, so head (0, 1) shows nothing until derived;
    // zooming in asks for the window's rows, and the hover reads no weight until they arrive.
    view.setHead(0, 1);
    view.flushRedraw();
    ASSERT_EQ(queued.size(), 2u);
    queued[1].first();
    queued[1].second({});
    view.plot()->xAxis->setRange(99.5, 129.5);
    view.plot()->yAxis->setRange(199.5, 229.5);
    view.flushRedraw();
    ASSERT_EQ(queued.size(), 3u);
    EXPECT_EQ(s->cachedRows(0, 1, 200, 230), nullptr);
    EXPECT_GT(view.matrix().block, 1); // the thumbnail's blocks stand in meanwhile
    EXPECT_NE(view.cellToolTip(220, 120).indexOf("zoom in"), -1);
    queued[2].first();
    queued[2].second({});
    view.flushRedraw();
    ASSERT_EQ(view.matrix().block, 1);
    EXPECT_EQ(view.matrix().at(20, 20), static_cast<double>(s->rows(0, 1, 200, 230)->at({ 20, 120 })));
    EXPECT_NE(view.cellToolTip(220, 120).indexOf("weight: "), -1);

    // A failure is shown, and not asked again on every redraw.
    view.setHead(0, 0);
    view.flushRedraw();
    ASSERT_EQ(queued.size(), 4u);
    queued[3].second("device lost");
    view.flushRedraw();
    view.flushRedraw();
    EXPECT_EQ(queued.size(), 4u);
    EXPECT_FALSE(view.isDeriving());
}

TEST(LongHeatmap, GridHeadViewAndStatisticsReadThroughTheSource)
{
    const SnapshotPtr s = longSnapshot();
    HeadGridView grid;
    grid.setSnapshot(s);
    ASSERT_EQ(grid.thumbnailCount(), 4);
    EXPECT_LE(grid.thumbnail(1, 0).width(), AttentionSource::kThumbnailSide); // an overview, not 600 x 600
    HeadLinesView lines;
    lines.setSnapshot(s);
    lines.resize(700, 900);
    EXPECT_FALSE(lines.grab().isNull());
    StatsView stats;
    stats.setSnapshot(s);
    EXPECT_EQ(s->stats(1, 1).rows, kTokens);
    EXPECT_EQ(s->stats(1, 1).entropy, s->source()->headStats(1, 1).entropy);
}

// Issue 22: a 2,048-token input holds no whole head, and its heatmap figure export used to be refused. It is drawn as
// the view shows it zoomed out (the overview level whose blocks fit the plot) and its data comes from the source's
// rows.
TEST(LongHeatmap, FigureAndDataExportOfA2048TokenInput)
{
    constexpr int64_t n = 2048;
    const SnapshotPtr s = longSnapshot(n);
    ASSERT_FALSE(s->holdsMatrices());
    FigureRecipe r;
    r.view = FigureView::Heatmap;
    r.layer = 1;
    r.head = 0;
    r.dpi = 96;
    const std::string dir = test::makeTempDir("ui-long-export");
    const QString png = QString::fromStdString(dir + "/long.png");
    FigureRenderer(s).render(r, png, FigureFormat::Png);
    QImage image;
    ASSERT_TRUE(image.load(png));
    EXPECT_EQ(image.size(), FigureRenderer(s).figureSize(r));
    // The lower triangle is drawn in many colours, the masked upper one in the plot's background.
    QSet<QRgb> colors;
    for (int y = image.height() / 4; y < image.height() * 3 / 4; y += 2)
        for (int x = image.width() / 8; x < image.width() * 3 / 4; x += 2)
            colors.insert(image.pixel(x, y));
    EXPECT_GT(colors.size(), 50);
    const QString svg = QString::fromStdString(dir + "/long.svg");
    FigureRenderer(s).render(r, svg, FigureFormat::Svg);
    QFile file(svg);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_TRUE(file.readAll().contains("overview: max of 4")) << "the figure says what a cell is";

    const Tensor data = figureData(*s, r);
    ASSERT_EQ(data.shape(), (Shape { n, n }));
    const auto rows = s->rows(1, 0, 0, n);
    EXPECT_TRUE(std::equal(data.data(), data.data() + data.numel(), rows->data())) << "the source's own probabilities";
    EXPECT_THROW(FigureRenderer(s).render(
                     [&] {
                         FigureRecipe bad = r;
                         bad.head = 2;
                         return bad;
                     }(),
                     png, FigureFormat::Png),
        Error);
}

// Issue 22: a 2,048-token head view was 41,014 px tall, over the figure limit, and its export was refused. Its rows now
// take a smaller pitch so that the page fits, and the lines (drawn where the figure is written) reach the last rows:
// those of the last query, pinned (every row's lines take a minute or more on this machine).
TEST(LongHeatmap, HeadViewFigureOfA2048TokenInputFitsThePage)
{
    constexpr int64_t n = 2048;
    const SnapshotPtr s = longSnapshot(n);
    FigureRecipe r;
    r.view = FigureView::HeadView;
    r.layer = 1;
    r.head = 0;
    r.heads = { 0, 1 };
    r.selectedToken = n - 1;
    r.dpi = 96;
    const QSize size = FigureRenderer(s).figureSize(r);
    EXPECT_LE(size.height(), kMaxFigureSide);
    EXPECT_GT(size.height(), kMaxFigureSide * 8 / 10) << "the largest pitch that fits: 9 px, not less";
    const QString png = QString::fromStdString(test::makeTempDir("ui-long-head-view") + "/head.png");
    FigureRenderer(s).render(r, png, FigureFormat::Png);
    QImage image;
    ASSERT_TRUE(image.load(png));
    EXPECT_EQ(image.size(), size);
    // Between the token columns (x 144..396): the last query's lines leave its row at the bottom of the page and
    // fan out over the keys above; the token texts of the last rows are drawn too (left column, x 10..140).
    const auto inked = [&image](int left, int right, int top, int bottom) {
        int count = 0;
        for (int y = top; y < bottom; ++y)
            for (int x = left; x < right; ++x)
                count += image.pixel(x, y) != qRgb(255, 255, 255);
        return count;
    };
    const int lastRow = size.height() - 10 - 9; // the page's bottom margin, then one 9 px row
    EXPECT_GT(inked(144, 148, lastRow, lastRow + 9), 2) << "lines leave the last row";
    EXPECT_GT(inked(150, 390, 60, lastRow), 1000) << "and reach the keys above";
    EXPECT_GT(inked(10, 140, lastRow - 90, lastRow + 9), 100) << "token texts";
}

} // namespace
} // namespace attn::ui
