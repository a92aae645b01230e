// SPDX-License-Identifier: MIT
// The attention views fed with golden HF attentions: the numbers drawn, the pixels' colours, grid and statistics.
#include "mechanisms/line_plot.h"
#include "mechanisms/matrix_snapshot.h"
#include "plots/heatmap_matrix.h"
#include "plots/heatmap_view.h"
#include "plots/stats_view.h"
#include "ui_test_support.h"
#include "widgets/head_grid_view.h"
#include "widgets/head_lines_view.h"
#include "widgets/model_view.h"

#include <QApplication>
#include <QFontMetrics>
#include <QImage>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>

#include <qcustomplot.h>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace attn::ui {
namespace {

using test::goldenAttention;
using test::goldenSnapshot;

int colorDistance(QColor a, QColor b) {
    return std::max({ std::abs(a.red() - b.red()), std::abs(a.green() - b.green()), std::abs(a.blue() - b.blue()) });
}

TEST(HeatmapMatrix, LinearEqualsGoldenAndMasksFutureTokens) {
    const SnapshotPtr s = goldenSnapshot("gpt2", true);
    const Tensor golden = goldenAttention("gpt2", 1);
    const int64_t q = golden.dim(1), k = golden.dim(2);
    const HeatmapMatrix m = buildHeatmapMatrix(*s, 1, 2, {});
    ASSERT_EQ(m.rows, q);
    ASSERT_EQ(m.cols, k);
    for (int64_t i = 0; i < q; ++i)
        for (int64_t j = 0; j < k; ++j) {
            if (j > i)
                EXPECT_TRUE(std::isnan(m.at(i, j))) << i << "," << j;
            else
                EXPECT_EQ(m.at(i, j), static_cast<double>(golden.at({ 2, i, j }))) << i << "," << j;
        }
    EXPECT_EQ(m.low, 0.0);
    EXPECT_GT(m.high, 0.0);
}

TEST(HeatmapMatrix, ScalingModes) {
    const SnapshotPtr s = goldenSnapshot("gpt2", true);
    const float* p = s->head(0, 1);
    const int64_t k = s->numKeys();

    HeatmapOptions log;
    log.scale = ScaleMode::Log;
    const HeatmapMatrix ml = buildHeatmapMatrix(*s, 0, 1, log);
    EXPECT_NEAR(ml.at(5, 3), std::log10(std::max(1e-6, static_cast<double>(p[5 * k + 3]))), 1e-12);
    EXPECT_LE(ml.high, 0.0);

    HeatmapOptions rowNorm;
    rowNorm.scale = ScaleMode::RowNormalized;
    const HeatmapMatrix mr = buildHeatmapMatrix(*s, 0, 1, rowNorm);
    for (int64_t i = 0; i < mr.rows; ++i) {
        double rowMax = 0;
        for (int64_t j = 0; j <= i; ++j)
            rowMax = std::max(rowMax, mr.at(i, j));
        EXPECT_NEAR(rowMax, 1.0, 1e-12) << "row " << i;
    }

    HeatmapOptions sinkless;
    sinkless.excludeFirstToken = true;
    const HeatmapMatrix me = buildHeatmapMatrix(*s, 0, 1, sinkless);
    for (int64_t i = 1; i < me.rows; ++i) {
        EXPECT_TRUE(std::isnan(me.at(i, 0)));
        double sum = 0;
        for (int64_t j = 1; j <= i; ++j)
            sum += me.at(i, j);
        EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << i;
    }

    HeatmapOptions mask;
    mask.showMask = true;
    const HeatmapMatrix mm = buildHeatmapMatrix(*s, 0, 1, mask);
    EXPECT_EQ(mm.at(3, 3), 1.0);
    EXPECT_EQ(mm.at(3, 4), 0.0);
    EXPECT_EQ(rankInRow(s->rows(0, 1, 0, 1)->data(), s->numKeys(), 0), 1); // row 0 of a causal head sees only key 0
}

TEST(HeatmapView, GrabbedPixelsFollowTheColormap) {
    const SnapshotPtr s = goldenSnapshot("gpt2", true);
    HeatmapView view;
    view.resize(900, 700);
    view.setSnapshot(s);
    view.setHead(1, 3);
    view.setColormap(Colormap::Magma);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.flushRedraw();
    const QImage image = view.grab().toImage();
    ASSERT_FALSE(image.isNull());

    QSet<QRgb> colors;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colors.insert(image.pixel(x, y));
    EXPECT_GT(colors.size(), 50) << "the grabbed heatmap looks blank";

    const HeatmapMatrix& m = view.matrix();
    int checked = 0;
    for (int64_t i = 0; i < m.rows; i += 5)
        for (int64_t j = 0; j < m.cols; j += 3) {
            const QPoint c = view.cellCenter(i, j);
            const QColor pixel = image.pixelColor(c);
            const QColor expected = j > i ? maskedCellColor(Colormap::Magma)
                                          : colormapColor(Colormap::Magma, (m.at(i, j) - m.low) / (m.high - m.low));
            EXPECT_LE(colorDistance(pixel, expected), 4)
                << "cell " << i << "," << j << " at " << c.x() << "," << c.y() << " of " << image.width() << "x"
                << image.height() << " value " << m.at(i, j) << " pixel " << pixel.name().toStdString() << " expected "
                << expected.name().toStdString();
            ++checked;
        }
    EXPECT_GT(checked, 20);
}

// QCPColorMap spans its image between the first and last cell centres, so one row (a cross head on a lone start
// token) or one column used to be drawn zero pixels wide: a blank plot. Each cell's centre and both of its edges
// (0.4 of a cell from the centre) show its colour.
TEST(HeatmapView, AOneRowAndAOneColumnMapAreDrawn)
{
    for (const bool oneRow : { true, false }) {
        SCOPED_TRACE(oneRow ? "one row" : "one column");
        const int64_t n = 6;
        Mat values(oneRow ? 1 : n, oneRow ? n : 1);
        for (int64_t i = 0; i < n; ++i)
            values(oneRow ? 0 : i, oneRow ? i : 0) = 0.05 + 0.15 * static_cast<double>(i);
        HeatmapView view;
        view.resize(700, 500);
        view.setColormap(Colormap::Magma);
        view.setSnapshot(matrixSnapshot(values, indexChips("q", values.rows()), indexChips("k", values.cols())));
        view.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
        view.flushRedraw();
        const HeatmapMatrix& m = view.matrix();
        ASSERT_EQ(m.rows, values.rows());
        ASSERT_EQ(m.cols, values.cols());
        const QImage image = view.grab().toImage();
        const QCPAxis* x = view.plot()->xAxis;
        const QCPAxis* y = view.plot()->yAxis;
        const QPoint origin = view.plot()->mapTo(&view, QPoint(0, 0));
        for (int64_t i = 0; i < m.rows; ++i)
            for (int64_t j = 0; j < m.cols; ++j) {
                const QColor expected = colormapColor(Colormap::Magma, (m.at(i, j) - m.low) / (m.high - m.low));
                for (const double offset : { -0.4, 0.0, 0.4 }) {
                    const double row = static_cast<double>(i) + (oneRow ? offset : 0.0);
                    const double col = static_cast<double>(j) + (oneRow ? 0.0 : offset);
                    const QPoint at = origin
                        + QPoint(static_cast<int>(std::lround(x->coordToPixel(col))),
                            static_cast<int>(std::lround(y->coordToPixel(row))));
                    EXPECT_LE(colorDistance(image.pixelColor(at), expected), 4)
                        << "cell " << i << "," << j << " offset " << offset << " pixel "
                        << image.pixelColor(at).name().toStdString() << " expected " << expected.name().toStdString();
                }
            }
    }
}

TEST(HeatmapView, ToolTipNamesTokensWeightAndRank)
{
    const SnapshotPtr s = goldenSnapshot("gpt2", true);
    HeatmapView view;
    view.setSnapshot(s);
    view.setHead(0, 0);
    view.flushRedraw();
    const float w = s->head(0, 0)[4 * s->numKeys() + 2];
    const QString tip = view.cellToolTip(4, 2);
    EXPECT_TRUE(tip.contains(QString::number(static_cast<double>(w), 'g', 5))) << tip.toStdString();
    EXPECT_TRUE(tip.contains(QString("rank in row: %1 of 26").arg(rankInRow(s->rows(0, 0, 4, 5)->data(), s->numKeys(), 2)))) << tip.toStdString();
    EXPECT_TRUE(view.cellToolTip(2, 4).contains("causal")) << view.cellToolTip(2, 4).toStdString();
}

/// The plot of `view` once the layout pass that may re-space its labels, and the replot after it, have run.
QCustomPlot* settledPlot(HeatmapView& view)
{
    QTest::qWait(50); // the queued replot of a re-spacing
    auto* plot = view.findChild<QCustomPlot*>("heatmapPlot");
    plot->replot(QCustomPlot::rpImmediateRefresh);
    return plot;
}

/// Neighbouring labels of `axis` are at least a line apart, measured across their direction.
void expectLabelsApart(QCPAxis* axis, const std::string& where)
{
    const QVector<double> ticks = axis->tickVector();
    ASSERT_GE(ticks.size(), 2) << where << ": too few labels to read";
    const double line = QFontMetrics(axis->tickLabelFont()).height();
    const double turn = axis->orientation() == Qt::Horizontal && axis->tickLabelRotation() != 0
        ? std::sin(std::abs(axis->tickLabelRotation()) * std::numbers::pi / 180)
        : 1.0;
    for (qsizetype i = 1; i < ticks.size(); ++i) {
        const double apart = std::abs(axis->coordToPixel(ticks[i]) - axis->coordToPixel(ticks[i - 1])) * turn;
        EXPECT_GE(apart, line) << where << ": labels " << ticks[i - 1] << " and " << ticks[i] << " overlap";
    }
}

TEST(HeatmapView, TokenLabelsOfANarrowMapDoNotOverlapAndFollowResizes)
{
    // A third of the Mechanisms tab at 1024 px: the labels fit the real axis, not an assumed 100 px one.
    const SnapshotPtr s = goldenSnapshot("gpt2", true);
    HeatmapView view;
    view.setControlsVisible(false);
    view.resize(210, 260);
    view.setSnapshot(s);
    view.setHead(0, 0);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.flushRedraw();
    QCustomPlot* plot = settledPlot(view);
    EXPECT_LT(plot->axisRect()->width(), 100) << "the case this test is about";
    expectLabelsApart(plot->xAxis, "narrow keys");
    expectLabelsApart(plot->yAxis, "narrow queries");
    const qsizetype narrow = plot->xAxis->tickVector().size();

    view.resize(900, 700); // no zoom changes: the resize alone re-spaces the labels
    plot = settledPlot(view);
    expectLabelsApart(plot->xAxis, "wide keys");
    EXPECT_EQ(plot->xAxis->tickVector().size(), s->numKeys()) << "every key labelled once there is room";

    view.resize(210, 260);
    plot = settledPlot(view);
    expectLabelsApart(plot->xAxis, "narrow again");
    EXPECT_EQ(plot->xAxis->tickVector().size(), narrow);
}

// Compare's maps at one size shown a short input, a long one, then the short one again, back and forth as a run
// refreshes them: the short one's layout (flat key labels, every row labelled) must come back, not keep the long one's
// turned-label margin, and each switch's new labels change the margins, which must re-space them every time, not only
// on the first two switches after a resize (the third kept the long map's row spacing: 12.75 px where a line is 14).
TEST(HeatmapView, EverySwitchOfContentAtOneSizeGetsItsOwnLayout)
{
    HeatmapView view;
    view.setControlsVisible(false);
    view.resize(420, 332);
    const SnapshotPtr small = matrixSnapshot(Mat::Random(15, 4).cwiseAbs(), indexChips("q", 15), indexChips("k", 4));
    const SnapshotPtr wide
        = matrixSnapshot(Mat::Random(15, 60).cwiseAbs(), indexChips("q", 15), indexChips("keyword", 60));
    view.setSnapshot(small);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.flushRedraw();
    QCustomPlot* plot = settledPlot(view);
    ASSERT_EQ(plot->xAxis->tickLabelRotation(), 0) << "the case this test is about: flat key labels";
    ASSERT_EQ(plot->yAxis->tickVector().size(), 15) << "the case this test is about: every row labelled";
    const int height = plot->axisRect()->height();
    for (int round = 0; round < 4; ++round) {
        const std::string where = "round " + std::to_string(round);
        view.setSnapshot(wide);
        view.flushRedraw();
        plot = settledPlot(view);
        ASSERT_NE(plot->xAxis->tickLabelRotation(), 0) << where << ": the case this test is about: turned key labels";
        ASSERT_LT(plot->axisRect()->height(), height) << where << ": the case this test is about: a taller margin";
        expectLabelsApart(plot->xAxis, where + " long keys");
        expectLabelsApart(plot->yAxis, where + " long queries");

        view.setSnapshot(small);
        view.flushRedraw();
        plot = settledPlot(view);
        EXPECT_EQ(plot->xAxis->tickLabelRotation(), 0) << where;
        EXPECT_EQ(plot->axisRect()->height(), height) << where << ": the long map's margin kept";
        EXPECT_EQ(plot->yAxis->tickVector().size(), 15) << where << ": rows thinned for the long map's data area";
        expectLabelsApart(plot->yAxis, where + " short again");
    }
}

TEST(HeatmapView, IndexLabelsOfANarrowMapAreNotRepeated)
{
    // The Intervene tab's layers x heads map: labels "0".."7" thinned to every second one read "2", not "2 2".
    HeatmapView view;
    view.setControlsVisible(false);
    view.resize(170, 220);
    view.setSnapshot(matrixSnapshot(Mat::Zero(5, 40), indexChips(QString(), 5), indexChips(QString(), 40)));
    view.setHead(0, 0);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.flushRedraw();
    QCustomPlot* plot = settledPlot(view);
    const QVector<QString> labels = plot->xAxis->tickVectorLabels();
    const QVector<double> ticks = plot->xAxis->tickVector();
    ASSERT_LT(ticks.size(), 40) << "the case this test is about: not every column labelled";
    ASSERT_FALSE(ticks.isEmpty());
    for (qsizetype i = 0; i < ticks.size(); ++i)
        EXPECT_EQ(labels[i], QString::number(static_cast<int>(ticks[i])));
}

TEST(LinePlot, ALegendBelowTheAxesLeavesThemTheWholeWidthBeforeAndAfterTheFirstSeries)
{
    // An empty legend in the plot's layout capped the axes at its own width: the Pruning tab's curve was a sliver.
    LinePlot plot;
    plot.resize(460, 360);
    plot.setLegendBelow(2);
    plot.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&plot));
    for (const bool withSeries : { false, true }) {
        SCOPED_TRACE(withSeries ? "with series" : "empty");
        if (withSeries)
            plot.setSeries({ { "loss", { 0, 1 }, { 1, 0 }, Qt::red }, { "accuracy", { 0, 1 }, { 0, 1 }, Qt::blue } });
        QCustomPlot* p = plot.plot();
        p->replot(QCustomPlot::rpImmediateRefresh);
        EXPECT_GT(p->axisRect()->width(), 460 * 3 / 4);
        EXPECT_EQ(p->legend->visible(), withSeries);
    }
    EXPECT_GE(plot.plot()->legend->outerRect().top(), plot.plot()->axisRect()->outerRect().bottom())
        << "the legend is under the axes";
}

TEST(LinePlot, AnIntegerXIsTickedOnlyAtWholeNumbers)
{
    // Compare's divergence of 15 query rows was ticked at 2.5, 7.5 and 12.5: positions that do not exist.
    for (const int points : { 15, 40, 1000 }) {
        SCOPED_TRACE(points);
        LinePlot plot;
        plot.resize(700, 250);
        plot.setIntegerX(QStringLiteral("divergence"), QStringLiteral("query position"), QStringLiteral("nats"));
        PlotSeries series;
        series.name = QStringLiteral("js");
        for (int i = 0; i < points; ++i) {
            series.x.push_back(i);
            series.y.push_back(0.1 * (i % 3));
        }
        plot.setSeries({ series });
        plot.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&plot));
        plot.plot()->replot(QCustomPlot::rpImmediateRefresh);
        const QVector<double> ticks = plot.plot()->xAxis->tickVector();
        ASSERT_GE(ticks.size(), 3);
        for (const double t : ticks)
            EXPECT_EQ(t, std::round(t));
    }
}

TEST(HeatmapView, WithNothingToShowItDrawsNoAxesOrColourScale)
{
    // The Intervene and Pruning tabs before their first run: an empty 0..5 grid beside a 0..6 scale read as data.
    HeatmapView view;
    view.setControlsVisible(false);
    view.setPlaceholder(QStringLiteral("No importance yet"));
    view.resize(500, 400);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    const auto coloursUnderTheTitle = [&] {
        view.flushRedraw();
        QCustomPlot* plot = settledPlot(view);
        const QImage image = plot->grab().toImage();
        QSet<QRgb> colours;
        for (int y = image.height() / 5; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                colours.insert(image.pixel(x, y));
        return colours.size();
    };
    EXPECT_LE(coloursUnderTheTitle(), 1) << "axes, grid or a colour scale drawn with no data";
    view.setSnapshot(goldenSnapshot("gpt2", true));
    view.setHead(0, 0);
    EXPECT_GT(coloursUnderTheTitle(), 20) << "the map, its axes and its scale";
}

TEST(HeadGridView, OneThumbnailPerHeadAndGqaGroups) {
    const SnapshotPtr s = goldenSnapshot("llama", true, 2);
    HeadGridView grid;
    grid.setSnapshot(s);
    EXPECT_EQ(grid.thumbnailCount(), s->numLayers() * s->numHeads());
    EXPECT_EQ(grid.thumbnailCount(), 8);
    EXPECT_EQ(s->kvHeadOf(0), 0);
    EXPECT_EQ(s->kvHeadOf(1), 0);
    EXPECT_EQ(s->kvHeadOf(2), 1);
    EXPECT_EQ(s->kvHeadOf(3), 1);
    // The thumbnail's top-left cell is (q 0, k 0); its first row's future keys are masked.
    const QImage& t = grid.thumbnail(1, 2);
    EXPECT_EQ(t.width(), s->numKeys());
    EXPECT_EQ(t.pixelColor(1, 0), maskedCellColor(Colormap::Viridis));
    grid.resize(grid.sizeHint());
    const QImage shot = grid.grab().toImage();
    EXPECT_EQ(shot.pixelColor(grid.thumbnailRect(1, 2).topRight() + QPoint(-1, 1)), maskedCellColor(Colormap::Viridis));
}

TEST(StatsView, TableHoldsEveryHeadAndSortsNumerically) {
    const SnapshotPtr s = goldenSnapshot("gpt2", true);
    StatsView view;
    view.setSnapshot(s);
    QStandardItemModel* model = view.tableModel();
    ASSERT_EQ(model->rowCount(), s->numLayers() * s->numHeads());
    MaskSpec causal;
    causal.causal = true;
    const auto expected = computeLayerHeadStats(goldenAttention("gpt2", 1), causal);
    for (int row = 0; row < model->rowCount(); ++row) {
        const int layer = model->item(row, 0)->data(Qt::DisplayRole).toInt();
        const int head = model->item(row, 1)->data(Qt::DisplayRole).toInt();
        if (layer != 1) continue;
        EXPECT_NEAR(model->item(row, 3)->data(Qt::DisplayRole).toDouble(), expected[head].entropy, 1e-4);
        EXPECT_NEAR(model->item(row, 7)->data(Qt::DisplayRole).toDouble(), expected[head].previousToken, 1e-4);
    }
    view.setMetric(StatsView::SinkMass);
    EXPECT_NEAR(view.plottedValue(1, 2), expected[2].sinkMass, 1e-12);

    view.table()->sortByColumn(6, Qt::DescendingOrder); // first-token mass
    double previous = 2.0;
    for (int row = 0; row < model->rowCount(); ++row) {
        const double v = model->item(row, 6)->data(Qt::DisplayRole).toDouble();
        EXPECT_LE(v, previous);
        previous = v;
    }
}

TEST(HeadLinesView, DrawsLinesForSelectedHeads) {
    const SnapshotPtr s = goldenSnapshot("gpt2", true);
    HeadLinesView view;
    view.setSnapshot(s);
    view.setLayer(1);
    view.setHeads({ 0, 2 });
    view.setSelectedToken(10);
    view.resize(view.sizeHint());
    const QImage image = view.grab().toImage();
    // Somewhere between the two columns there are pixels in head 0's and head 2's colours.
    bool seen0 = false, seen2 = false;
    const QColor c0 = HeadLinesView::headColor(0), c2 = HeadLinesView::headColor(2);
    for (int y = 0; y < image.height(); ++y)
        for (int x = 150; x < 380; ++x) {
            const QColor p = image.pixelColor(x, y);
            seen0 = seen0 || colorDistance(p, c0) < 40;
            seen2 = seen2 || colorDistance(p, c2) < 40;
        }
    EXPECT_TRUE(seen0);
    EXPECT_TRUE(seen2);
}

/// Puts `view` in a scroll area as the main window holds it, shorter than the view's content, and checks that the view
/// keeps its whole height and the area scrolls to reach it, instead of cutting the lower rows off.
void expectToScrollInItsArea(QWidget* view) {
    QScrollArea area;
    area.setWidget(view);
    area.setWidgetResizable(true);
    area.resize(700, 200);
    area.show();
    QApplication::processEvents();
    const int whole = view->hasHeightForWidth() ? view->heightForWidth(view->width()) : view->sizeHint().height();
    EXPECT_GT(whole, 200);
    EXPECT_GE(view->height(), whole);
    EXPECT_GT(area.verticalScrollBar()->maximum(), 0);
}

TEST(HeadLinesView, AnInputTallerThanItsScrollAreaScrollsInsteadOfBeingCut) {
    auto* view = new HeadLinesView;
    view->setSnapshot(goldenSnapshot("gpt2", true));
    expectToScrollInItsArea(view);
}

TEST(HeadGridView, AndModelViewScrollAModelDeeperThanTheirScrollAreas) {
    const SnapshotPtr s = goldenSnapshot("llama", true, 2);
    auto* grid = new HeadGridView;
    grid->setSnapshot(s);
    expectToScrollInItsArea(grid);
    auto* model = new ModelView;
    model->setSnapshot(s);
    expectToScrollInItsArea(model);
}

} // namespace
} // namespace attn::ui
