// SPDX-License-Identifier: MIT
// The window's interactions: Cancel inside a long run, per-layer progress, wheel zoom and drag pan on the heatmap,
// drag & drop of a model folder, the Open Recent menu across windows, and the statistics table model's contract.
#include "core/error.h"
#include "main_window.h"
#include "plots/heatmap_view.h"
#include "plots/stats_view.h"
#include "support/shared_data.h"
#include "ui_test_support.h"

#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <QWheelEvent>

#include <gtest/gtest.h>

#include <thread>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 30000;

/// A model whose run takes `layers` steps of 10 ms, reporting progress per step as the engine does per layer.
class SlowProvider : public AttentionProvider {
public:
    SlowProvider() { m_summary.config.kind = ModelKind::Encoder; }
    const ModelSummary& summary() const override { return m_summary; }
    std::vector<TokenChip> tokenize(const std::string& text, bool) override { return { { text, 1, false } }; }
    RunPtr runPair(const std::string& text, const std::string&, const ProgressFn& progress) override {
        const int layers = text == "long" ? 1000 : 2;
        for (int l = 1; l <= layers; ++l) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            if (!progress(l, layers)) throw Cancelled();
        }
        return test::singleTokenRun(text);
    }

private:
    ModelSummary m_summary;
};

TEST(WindowInteraction, CancelStopsALongRunAndLeavesNoStaleResult) {
    MainWindow window([](const std::string&, ModelRegistry&, const ProgressFn&) { return std::make_unique<SlowProvider>(); });
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    QSignalSpy progress(window.controller(), &EngineController::progress);
    QSignalSpy cancelled(window.controller(), &EngineController::cancelled);
    window.openModel("slow");
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, 5000);
    progress.clear(); // opening the model reports progress too; only the run's steps count below
    window.setInputText("long"); // 10 s unless cancelled
    QTRY_VERIFY_WITH_TIMEOUT(
        !progress.isEmpty() && progress.last().at(1).toInt() == 1000 && progress.last().at(0).toInt() >= 5, 5000);
    EXPECT_TRUE(window.controller()->busy());
    QElapsedTimer clock;
    clock.start();
    window.findChild<QAction*>("actionCancel")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 2000);
    EXPECT_LT(clock.elapsed(), 1000); // stopped within a step, not at the end of the run
    EXPECT_FALSE(window.controller()->busy());
    QTest::qWait(200);
    EXPECT_EQ(shown.count(), 0);
    EXPECT_EQ(window.snapshot(), nullptr);
    // The progress bar moved step by step before the cancel.
    const int lastStep = progress.last().at(0).toInt();
    EXPECT_GE(lastStep, 5);
    EXPECT_LT(lastStep, 1000);

    window.setInputText("short"); // the window still works
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, 5000);
    EXPECT_EQ(window.snapshot()->tokens().at(0).text, "short");
    EXPECT_TRUE(window.lastError().isEmpty());
}

TEST(WindowInteraction, RealRunReportsProgressPerLayer) {
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openModel(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/gpt2")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    QSignalSpy progress(window.controller(), &EngineController::progress);
    window.setInputText(test::fixtureText("gpt2"));
    QTRY_COMPARE_WITH_TIMEOUT(shown.count(), 1, kTimeoutMs);
    const int layers = static_cast<int>(window.summary()->config.numLayers);
    std::vector<int> steps;
    for (const QList<QVariant>& args : progress)
        if (args.at(1).toInt() == layers + 2) steps.push_back(args.at(0).toInt());
    // 1 = tokenized, 1 + l after layer l, then done.
    std::vector<int> expected;
    for (int s = 1; s <= layers + 2; ++s)
        expected.push_back(s);
    EXPECT_EQ(steps, expected);
}

TEST(WindowInteraction, WheelZoomAndDragPanChangeTheHeatmapRanges) {
    HeatmapView view;
    view.resize(800, 600);
    view.show();
    view.setSnapshot(test::goldenSnapshot("gpt2", true));
    view.setHead(0, 0);
    view.flushRedraw();
    QCustomPlot* plot = view.plot();
    const QCPRange x0 = plot->xAxis->range(), y0 = plot->yAxis->range();
    ASSERT_DOUBLE_EQ(x0.lower, -0.5);
    ASSERT_DOUBLE_EQ(x0.upper, 25.5);

    // Zoom in around the centre of cell (10, 10): both ranges shrink and still contain that cell.
    const QPoint at = plot->mapFrom(&view, view.cellCenter(10, 10));
    QWheelEvent wheel(QPointF(at), plot->mapToGlobal(QPointF(at)), QPoint(), QPoint(0, 120), Qt::NoButton,
        Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &wheel);
    const QCPRange x1 = plot->xAxis->range(), y1 = plot->yAxis->range();
    EXPECT_LT(x1.size(), x0.size());
    EXPECT_LT(y1.size(), y0.size());
    EXPECT_TRUE(x1.contains(10.0) && y1.contains(10.0));
    const double cellPixels = plot->xAxis->coordToPixel(1.0) - plot->xAxis->coordToPixel(0.0);

    // Drag 3 cells to the right and 2 down: the view moves by those coordinates the other way.
    const QPoint to = at + QPoint(static_cast<int>(std::lround(3 * cellPixels)), 0);
    QTest::mousePress(plot, Qt::LeftButton, Qt::NoModifier, at);
    QMouseEvent move(QEvent::MouseMove, QPointF(to), plot->mapToGlobal(QPointF(to)), Qt::NoButton, Qt::LeftButton,
        Qt::NoModifier);
    QApplication::sendEvent(plot, &move);
    QTest::mouseRelease(plot, Qt::LeftButton, Qt::NoModifier, to);
    const QCPRange x2 = plot->xAxis->range(), y2 = plot->yAxis->range();
    EXPECT_NEAR(x2.lower, x1.lower - 3.0, 0.05);
    EXPECT_NEAR(x2.size(), x1.size(), 1e-9);
    EXPECT_NEAR(y2.lower, y1.lower, 1e-9);

    // Eight notches in all come within reach of single tokens: at least 8x.
    for (int i = 1; i < 8; ++i)
        QApplication::sendEvent(plot, &wheel);
    EXPECT_LE(plot->xAxis->range().size(), x0.size() / 8) << plot->xAxis->range().size();
}

TEST(WindowInteraction, DroppingAModelFolderOpensIt) {
    MainWindow window;
    window.show();
    const QString folder = QString::fromStdString(test::sharedPath("fixtures/hf-tiny/bert"));
    QMimeData data;
    data.setUrls({ QUrl::fromLocalFile(folder) });
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    EXPECT_EQ(QString::fromStdString(window.summary()->path), folder);
}

TEST(WindowInteraction, OpenRecentListsModelsNewestFirstAcrossWindows) {
    QTemporaryDir settingsDir;
    ASSERT_TRUE(settingsDir.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings().remove("recentModels");
    const auto recentPaths = [](MainWindow& window) {
        QStringList paths;
        for (QAction* action : window.findChild<QMenu*>("menuRecent")->actions())
            paths << action->text();
        return paths;
    };
    QStringList opened;
    {
        MainWindow window;
        EXPECT_TRUE(recentPaths(window).isEmpty());
        for (const char* name : { "gpt2", "bert", "gpt2" }) {
            const QString path = QString::fromStdString(test::sharedPath(std::string("fixtures/hf-tiny/") + name));
            window.openModel(path);
            QTRY_VERIFY_WITH_TIMEOUT(window.summary() && QString::fromStdString(window.summary()->path) == path, kTimeoutMs);
            opened.removeAll(path);
            opened.prepend(path);
        }
        EXPECT_EQ(recentPaths(window), opened);
    }
    ASSERT_EQ(opened.size(), 2); // reopening gpt2 moved it to the top instead of listing it twice
    MainWindow later;
    EXPECT_EQ(recentPaths(later), opened);
    QSettings().remove("recentModels");
}

TEST(WindowInteraction, StatisticsTableModelPassesTheItemModelTester) {
    StatsView view;
    QAbstractItemModelTester sourceTester(view.tableModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    QAbstractItemModelTester viewTester(view.table()->model(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    view.setSnapshot(test::goldenSnapshot("gpt2", true));
    view.setSnapshot(test::goldenSnapshot("bert", false));
    view.table()->sortByColumn(3, Qt::AscendingOrder);
    EXPECT_EQ(view.table()->model()->rowCount(), 2 * 4);
}

} // namespace
} // namespace attn::ui
