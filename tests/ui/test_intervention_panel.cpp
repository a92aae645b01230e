// SPDX-License-Identifier: MIT
// Issue 18, the GUI part: on the demo decoder a head is ablated from the All heads grid's context menu; the Intervene
// tab's diff (KL per position, top next tokens, the head's attention difference) equals two whole prefills through
// the engine API (what `attnscope-cli ablate` runs), the grid marks the head, and Ctrl+Z gives back the unmodified
// run's numbers exactly; a hidden tab builds no head's difference; the exported figure holds the whole diff.
// AS_INTERVENTION_SCREENSHOTS=DIR saves the tab at 1024x700 and 1280x800, and the exported figure.
#include "demo_models.h"
#include "export/export_menu.h"
#include "export/figure_export.h"
#include "intervention/continuation.h"
#include "intervention/intervention_panel.h"
#include "intervention/intervention_runner.h"
#include "intervention/topk_table.h"
#include "main_window.h"
#include "mechanisms/line_plot.h"
#include "model/model_loader.h"
#include "plots/heatmap_view.h"
#include "session/decode_timeline.h"
#include "session/session.h"
#include "support/shared_data.h"
#include "widgets/head_grid_view.h"
#include "window_screenshots.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QImage>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <qcustomplot.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 60000;
// The tab re-runs from the ablated layer (ReusableRun) while the reference runs every layer: the same kernels on the
// same inputs, so only float32 rounding of the logits (InterventionDiff tests: 1e-5) reaches KL and probabilities.
constexpr double kKlTolerance = 1e-6, kProbTolerance = 1e-6;

const char* kStory = "Ben went to the park. Ben said the magic words: gold wind frog lamp. Then he said again: gold "
                     "wind frog lamp";

QString demoPath()
{
    for (const DemoModel& d : bundledDemoModels())
        if (d.path.endsWith("/demo-stories-llama")) return d.path;
    ADD_FAILURE() << "no bundled demo-stories-llama";
    return {};
}

/// The window shown at 1280x800 with the demo decoder open and kStory run.
void openDemo(MainWindow& window)
{
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openModel(demoPath());
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    window.setInputText(kStory);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1 || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << "error: '" << window.lastError().toStdString() << "'";
    ASSERT_TRUE(window.runResult());
}

/// What `ablate` computes: an unmodified and an ablated prefill of the run's tokens, each a whole forward.
struct Reference {
    std::shared_ptr<const StepResult> clean, ablated;
};

Reference reference(const MainWindow& window, const Ablation& ablation)
{
    const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(demoPath().toStdString()));
    EXPECT_TRUE(model);
    std::vector<int64_t> ids;
    for (const TokenChip& chip : window.runResult()->source)
        ids.push_back(chip.id);
    Session clean(model);
    const Intervention intervention = ablationIntervention(ablation, model->config());
    ForwardOptions options;
    options.intervention = &intervention;
    Session ablated(model, options);
    return { clean.prefill(ids), ablated.prefill(ids) };
}

/// Right-clicks head (layer, head) of the grid and clicks `action` in the menu that opens.
void chooseFromGridMenu(MainWindow& window, int64_t layer, int64_t head, const char* action)
{
    HeadGridView* grid = window.gridView();
    window.tabs()->setCurrentIndex(window.tabs()->indexOf(grid->parentWidget()->parentWidget())); // its scroll area
    const QPoint at = grid->thumbnailRect(layer, head).center();
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, grid->mapToGlobal(at));
    QApplication::sendEvent(grid, &event);
    QMenu* menu = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((menu = window.findChild<QMenu*>("headContextMenu")) && menu->isVisible(), 5000);
    QAction* chosen = menu->findChild<QAction*>(action);
    ASSERT_NE(chosen, nullptr) << action;
    QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(chosen).center());
}

/// The KL the tab plots and tabulates equals `kl` per position.
void expectKlShown(InterventionPanel& panel, const Tensor& kl, double tolerance)
{
    const std::vector<double>& plotted = panel.klPlot()->series().at(0).y;
    ASSERT_EQ(static_cast<int64_t>(plotted.size()), kl.numel());
    ASSERT_EQ(panel.topTable()->rowCount(), kl.numel());
    for (int64_t i = 0; i < kl.numel(); ++i) {
        EXPECT_NEAR(plotted[static_cast<size_t>(i)], kl.data()[i], tolerance) << "position " << i;
        EXPECT_NEAR(panel.topTable()->item(static_cast<int>(i), kTopKl)->text().toDouble(), kl.data()[i],
            tolerance + 1e-5 * kl.data()[i]) // the table prints 6 significant digits
            << "position " << i;
    }
}

TEST(InterventionPanel, AblateFromTheGridMenuShowsTheEnginesDiffAndUndoRestoresTheRun)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(openDemo(window));
    InterventionPanel* panel = window.interventionPanel();
    ASSERT_NE(panel, nullptr);
    window.setCurrentHead(2, 0);

    QSignalSpy shown(panel, &InterventionPanel::resultShown);
    chooseFromGridMenu(window, 2, 0, "ablateZero");
    QTRY_VERIFY_WITH_TIMEOUT(panel->result() && !panel->result()->ablations.empty(), kTimeoutMs);
    EXPECT_EQ(window.tabs()->currentWidget(), panel) << "the diff is shown at once";
    EXPECT_EQ(window.gridView()->mark(2, 0), "zero");
    EXPECT_TRUE(window.gridView()->mark(2, 1).isEmpty());
    ASSERT_EQ(panel->list()->count(), 1);
    EXPECT_EQ(panel->list()->item(0)->text(), "L2.H0 zero");

    const Ablation removal { { { 2, 0 } }, AblationMode::Zero, 0.0f };
    const Reference ref = reference(window, removal);
    const Tensor kl = klPerRow(ref.clean->logits, ref.ablated->logits);
    EXPECT_GT(*std::max_element(kl.storage().begin(), kl.storage().end()), 1e-3) << "the induction head matters";
    expectKlShown(*panel, kl, kKlTolerance);
    const auto top = topTokens(ref.ablated->logits, 5), topClean = topTokens(ref.clean->logits, 5);
    const AblationResult& result = *panel->result();
    for (size_t i = 0; i < top.size(); ++i) {
        EXPECT_EQ(result.diff.changedTop[i][0].id, top[i][0].id) << "position " << i;
        EXPECT_EQ(result.diff.cleanTop[i][0].id, topClean[i][0].id) << "position " << i;
        for (size_t r = 0; r < 5; ++r)
            EXPECT_NEAR(result.diff.changedTop[i][r].probability, top[i][r].probability, kProbTolerance);
        // The table shows those lists.
        EXPECT_EQ(panel->topTable()->item(static_cast<int>(i), kTopChanged)->text(),
            topListText(result.diff.changedTop[i], result.diff.cleanTop[i], result));
    }
    // The heatmap shows the selected head's ablated minus unmodified attention (zero: -A on every visible cell).
    HeatmapView* diff = panel->differenceView();
    diff->flushRedraw();
    const HeatmapMatrix& m = diff->matrix();
    const Tensor& before = ref.clean->attention[2];
    const Tensor& after = ref.ablated->attention[2];
    const int64_t n = before.dim(1);
    ASSERT_EQ(m.rows, n);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j <= i; ++j)
            EXPECT_NEAR(m.at(i, j), after.data()[i * n + j] - before.data()[i * n + j], kProbTolerance)
                << i << "," << j;
    EXPECT_LT(m.at(n - 1, 0), 0.0) << "head 2.0 removed: its weights went to zero";

    // Undo with the keyboard: the list empties, the mark goes, and the numbers are the unmodified run's, exactly.
    const Tensor cleanLogits = result.diff.cleanLogits;
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    const int shownBefore = static_cast<int>(shown.count());
    QTest::keyClick(panel->topTable(), Qt::Key_Z, Qt::ControlModifier);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > shownBefore, kTimeoutMs);
    ASSERT_TRUE(panel->result());
    EXPECT_TRUE(panel->ablations().empty());
    EXPECT_TRUE(panel->result()->ablations.empty());
    EXPECT_TRUE(window.gridView()->mark(2, 0).isEmpty());
    EXPECT_EQ(panel->result()->diff.changedLogits.storage(), panel->result()->diff.cleanLogits.storage());
    EXPECT_EQ(panel->result()->diff.cleanLogits.storage(), cleanLogits.storage());
    expectKlShown(*panel, Tensor({ kl.numel() }), 0.0);
    diff->flushRedraw();
    for (const double v : diff->matrix().values)
        EXPECT_TRUE(std::isnan(v) || v == 0.0) << v;

    if (qEnvironmentVariableIsSet("AS_INTERVENTION_SCREENSHOTS")) {
        chooseFromGridMenu(window, 2, 0, "ablateMean");
        QTRY_VERIFY_WITH_TIMEOUT(panel->result() && !panel->result()->ablations.empty(), kTimeoutMs);
        test::saveScreenshots(window, "intervene");
        window.tabs()->setCurrentIndex(window.tabs()->indexOf(window.gridView()->parentWidget()->parentWidget()));
        test::saveScreenshots(window, "intervene-grid"); // the ablated head's mark
    }
}

// The diff also shows every head's attention change at once and the greedy continuation with and without the
// ablation: the engine's own continuation of the same tokens, and the demo's copy broken by removing its copying heads.
TEST(InterventionPanel, DiffShowsTheChangedContinuationAndEveryHead)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(openDemo(window));
    window.setInputText("Ben went to the park. Ben said the magic words: gold wind frog lamp. Then he said again: gold "
                        "wind");
    QTRY_VERIFY_WITH_TIMEOUT(window.runResult() && window.runResult()->text.ends_with("gold wind"), kTimeoutMs);
    InterventionPanel* panel = window.interventionPanel();
    window.tabs()->setCurrentWidget(panel);
    const Ablation copiers { { { 2, 0 }, { 2, 1 }, { 2, 3 } }, AblationMode::Zero, 0.0f };
    panel->addAblation(copiers);
    QTRY_VERIFY_WITH_TIMEOUT(panel->result() && !panel->result()->ablations.empty(), kTimeoutMs);
    const AblationResult& result = *panel->result();

    const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(demoPath().toStdString()));
    ASSERT_TRUE(model);
    const int64_t stop = decodeStopToken(probeModel(demoPath().toStdString()));
    const Intervention intervention = ablationIntervention(copiers, model->config());
    ForwardOptions options;
    options.intervention = &intervention;
    EXPECT_EQ(result.cleanContinuation, greedyContinuation(*model, result.tokens, kContinuationTokens, stop, {}));
    EXPECT_EQ(
        result.changedContinuation, greedyContinuation(*model, result.tokens, kContinuationTokens, stop, options));
    ASSERT_FALSE(result.cleanContinuation.empty());
    EXPECT_NE(result.changedContinuation.front(), result.cleanContinuation.front()) << "the copy is broken";
    EXPECT_TRUE(panel->continuationText().contains("differs from token 1")) << panel->continuationText().toStdString();

    // Every head: layers below the ablated one are reused, exactly unchanged; the removed heads moved their rows.
    const Tensor& change = result.diff.headChange;
    ASSERT_EQ(change.shape(), (Shape { 4, 4 }));
    for (int64_t i = 0; i < 8; ++i)
        EXPECT_EQ(change.data()[i], 0.0f) << "layer " << i / 4 << " head " << i % 4;
    for (const int64_t h : { 0, 1, 3 })
        EXPECT_GT(change.data()[2 * 4 + h], 0.1f) << "head 2." << h;
    HeatmapView* heads = panel->headChangeView();
    heads->flushRedraw();
    ASSERT_EQ(heads->matrix().rows, 4);
    for (int64_t l = 0; l < 4; ++l)
        for (int64_t h = 0; h < 4; ++h)
            EXPECT_NEAR(heads->matrix().at(l, h), change.data()[l * 4 + h], 1e-6) << l << "," << h;
    test::saveScreenshots(window, "intervene-continuation");

    QSignalSpy shown(panel, &InterventionPanel::resultShown);
    panel->undo();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, kTimeoutMs);
    EXPECT_EQ(panel->result()->changedContinuation, panel->result()->cleanContinuation);
    EXPECT_TRUE(panel->continuationText().contains("the same")) << panel->continuationText().toStdString();
}

// File > Export figure on the tab draws the whole diff: the all-heads map beside the list as well as the KL curve and
// the difference map. Once that map moved beside the list, the export drew the curve and the difference map alone.
TEST(InterventionPanel, TheExportedFigureHoldsTheAllHeadsMapTheCurveAndTheDifference)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(openDemo(window));
    InterventionPanel* panel = window.interventionPanel();
    window.tabs()->setCurrentWidget(panel);
    panel->addAblation({ { { 2, 0 } }, AblationMode::Zero, 0.0f });
    QTRY_VERIFY_WITH_TIMEOUT(
        panel->result() && !panel->result()->ablations.empty() && panel->differenceView()->snapshot(), kTimeoutMs);
    panel->headChangeView()->flushRedraw();
    panel->differenceView()->flushRedraw();
    const QWidget* figure = panel->findChild<QWidget*>(kFigureObjectName);
    ASSERT_NE(figure, nullptr);
    // AS_INTERVENTION_SCREENSHOTS=DIR keeps the figure for a look.
    const QString dir = qEnvironmentVariableIsSet("AS_INTERVENTION_SCREENSHOTS")
        ? qEnvironmentVariable("AS_INTERVENTION_SCREENSHOTS")
        : QString::fromStdString(test::makeTempDir("intervene-figure"));
    const QString path = dir + "/intervene-figure.png";
    window.findChild<ExportMenu*>()->exportFigure(path, 96);
    const QImage image = QImage(path).convertToFormat(QImage::Format_RGB32);
    ASSERT_EQ(image.size(), figure->size()) << "at 96 dpi a logical pixel is a pixel";
    for (QWidget* view :
        std::initializer_list<QWidget*> { panel->headChangeView(), panel->klPlot(), panel->differenceView() }) {
        const std::string name = view->objectName().toStdString();
        ASSERT_TRUE(figure->isAncestorOf(view)) << name << " is not in the figure";
        // Compared on the plots: a grab draws the views' frames a shade apart from the export.
        QWidget* plot = view->findChild<QCustomPlot*>();
        ASSERT_NE(plot, nullptr) << name;
        const QRect where(plot->mapTo(figure, QPoint()), plot->size());
        ASSERT_TRUE(image.rect().contains(where)) << name;
        // What the tab shows there, not a blank: the figure's pixels are the plot's own drawing.
        const QImage shown = plot->grab().toImage().convertToFormat(QImage::Format_RGB32);
        QSet<QRgb> colours;
        int same = 0;
        for (int y = 0; y < where.height(); ++y)
            for (int x = 0; x < where.width(); ++x) {
                const QRgb pixel = image.pixel(where.x() + x, where.y() + y);
                colours.insert(pixel);
                same += pixel == shown.pixel(x, y) ? 1 : 0;
            }
        EXPECT_GT(colours.size(), 20) << name << ": cells, curve, axes and labels";
        EXPECT_EQ(same, where.width() * where.height()) << name;
    }
}

// A head switch while the tab is hidden builds no difference (a 2,048-token head is 4M cells, and the selected head
// changes on every tab): the tab has the engine thread build the selected head's when it is shown, and it is that
// head's ablated minus unmodified attention.
TEST(InterventionPanel, AHiddenTabBuildsTheSelectedHeadsDifferenceOnlyWhenShown)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(openDemo(window));
    InterventionPanel* panel = window.interventionPanel();
    window.setCurrentHead(2, 0);
    window.tabs()->setCurrentWidget(panel);
    panel->addAblation({ { { 2, 0 } }, AblationMode::Zero, 0.0f });
    QTRY_VERIFY_WITH_TIMEOUT(panel->result() && !panel->result()->ablations.empty(), kTimeoutMs);
    HeatmapView* diff = panel->differenceView();
    const SnapshotPtr first = diff->snapshot();
    ASSERT_TRUE(first) << "the diff comes with the selected head's difference";
    EXPECT_TRUE(diff->caption().title.startsWith("L2.H0")) << diff->caption().title.toStdString();

    window.tabs()->setCurrentIndex(0);
    window.setCurrentHead(3, 1);
    QTest::qWait(300); // time for an answer of the engine thread, were one asked for
    EXPECT_EQ(diff->snapshot(), first) << "a hidden tab builds nothing";

    window.tabs()->setCurrentWidget(panel);
    QTRY_VERIFY_WITH_TIMEOUT(diff->snapshot() != first, kTimeoutMs);
    EXPECT_TRUE(diff->caption().title.startsWith("L3.H1")) << diff->caption().title.toStdString();
    diff->flushRedraw();
    const Tensor& clean = panel->result()->diff.cleanAttention[3];
    const Tensor& changed = panel->result()->diff.changedAttention[3];
    const int64_t n = clean.dim(1);
    const float* a = clean.data() + n * n; // head 1
    const float* b = changed.data() + n * n;
    const HeatmapMatrix& m = diff->matrix();
    ASSERT_EQ(m.rows, n);
    double largest = 0.0;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j <= i; ++j) {
            EXPECT_NEAR(m.at(i, j), b[i * n + j] - a[i * n + j], 1e-7) << i << "," << j;
            largest = std::max(largest, std::abs(m.at(i, j)));
        }
    EXPECT_GT(largest, 1e-4) << "a head after the ablated one changes";
}

// Cancel stops a re-run before it answers: no diff arrives, the tab says so, and the list is kept.
TEST(InterventionPanel, CancelStopsTheRerun)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(openDemo(window));
    InterventionPanel* panel = window.interventionPanel();
    QSignalSpy cancelled(panel->runner(), &InterventionRunner::cancelled);
    QSignalSpy shown(panel, &InterventionPanel::resultShown);
    // The engine thread waits on an earlier job until the click, so the cancel reaches the re-run before it starts.
    const auto release = std::make_shared<std::atomic<bool>>(false);
    window.controller()->post<bool>(
        &window,
        [release](EngineContext&) {
            while (!release->load())
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            return true;
        },
        [](bool) {}, {});
    panel->addAblation({ { { 1, 1 } }, AblationMode::Mean, 0.0f });
    EXPECT_TRUE(panel->runner()->busy());
    panel->findChild<QPushButton*>("cancelIntervention")->click();
    release->store(true);
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, kTimeoutMs);
    QTest::qWait(200);
    EXPECT_EQ(shown.count(), 0) << "no diff after a cancel";
    EXPECT_FALSE(panel->runner()->busy());
    EXPECT_TRUE(panel->status().startsWith("Cancelled")) << panel->status().toStdString();
    EXPECT_EQ(panel->ablations().size(), 1u);
    EXPECT_EQ(window.gridView()->mark(1, 1), "mean");
}

} // namespace
} // namespace attn::ui
