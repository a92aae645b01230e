// SPDX-License-Identifier: MIT
// The Mechanisms tab driven offscreen on stories260K through the one engine thread: what each page shows is the
// engine's numbers for that head (recomputed here through the engine API), stale answers are dropped, and
// ATTN_MECHANISMS_SCREENSHOTS=DIR writes every page at 1024x700 and 1280x800.
#include "core/npy.h"
#include "intervention/intervention_panel.h"
#include "main_window.h"
#include "mechanisms/attention_math.h"
#include "mechanisms/compare_page.h"
#include "mechanisms/entropy_page.h"
#include "mechanisms/flash_page.h"
#include "mechanisms/gqa_page.h"
#include "mechanisms/line_plot.h"
#include "mechanisms/linear_page.h"
#include "mechanisms/mechanism_report.h"
#include "mechanisms/mechanisms_cache.h"
#include "mechanisms/mechanisms_export.h"
#include "mechanisms/mechanisms_panel.h"
#include "mechanisms/positions_page.h"
#include "mechanisms/scale_page.h"
#include "mechanisms_test_support.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "plots/heatmap_view.h"
#include "service/model_registry.h"
#include "session/session.h"
#include "support/shared_data.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLayout>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <future>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = test::kMechanismsTimeoutMs;
using test::computeAndWait;
using test::expectViewShows;
using test::grabPages;

std::string storiesPath()
{
    return test::sharedPath("models/stories260K/stories260K.bin");
}

/// Opens `model` in the window and runs `text` on it.
void openAndRun(MainWindow& window, const std::string& model, const QString& text)
{
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openModel(QString::fromStdString(model));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    window.setInputText(text);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1 || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
}

void openStories(MainWindow& window)
{
    openAndRun(window, storiesPath(), "Once upon a time, there was a little girl named Lily. She liked to play.");
}

/// The window shown at 1280x800 with the story run, its Mechanisms tab not in front yet.
void showStories(MainWindow& window)
{
    window.resize(1280, 800);
    window.show();
    openStories(window);
}

QString tableValue(QTableWidget& table, const QString& name)
{
    for (int r = 0; r < table.rowCount(); ++r)
        if (table.item(r, 0)->text() == name) return table.item(r, 1)->text();
    return {};
}

/// ATTN_MECHANISMS_SCREENSHOTS=DIR: the window at 1280x800, and the tab alone at 1024x700 (the main window's other
/// tabs, Decode and Vision, need more than 1024 pixels) on the same head and variant.
void saveScreenshots(MainWindow& window, MechanismsPanel& panel)
{
    const QString dir = QString::fromUtf8(qgetenv("ATTN_MECHANISMS_SCREENSHOTS"));
    if (dir.isEmpty()) return;
    grabPages(window, panel, dir, QSize(1280, 800), "mechanisms");
    EngineController controller;
    MechanismsPanel alone(&controller);
    QSignalSpy loaded(&controller, &EngineController::modelLoaded), ran(&controller, &EngineController::runReady);
    controller.loadModel(QString::fromStdString(storiesPath()));
    ASSERT_TRUE(loaded.wait(kTimeoutMs));
    alone.setModel(loaded.takeFirst().at(0).value<SummaryPtr>());
    controller.run("Once upon a time, there was a little girl named Lily. She liked to play.");
    ASSERT_TRUE(ran.wait(kTimeoutMs));
    alone.runChanged(ran.takeFirst().at(0).value<RunPtr>()->source);
    alone.setHead(2, 5);
    alone.setSynthetic(false);
    alone.show();
    alone.resize(1024, 700);
    computeAndWait(alone, panel.variant());
    grabPages(alone, alone, dir, QSize(1024, 700), "mechanisms");
}

TEST(MechanismsPanel, ShowsTheEnginesNumbersForAStories260KHead)
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    openStories(window);
    MechanismsPanel& panel = *window.mechanismsPanel();
    window.tabs()->setCurrentWidget(&panel);
    window.setCurrentHead(2, 5);
    panel.setSynthetic(false);
    const MechanismsPtr r = computeAndWait(panel, "bigbird:3:1:1:7");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->request.variant, "bigbird:3:1:1:7");
    ASSERT_EQ(r->inputs.layer, 2);
    ASSERT_EQ(r->inputs.head, 5);

    // The same head through the engine API, independently of the tab, with the tab's pass (no stored attention: the
    // attention kernel that stores nothing sums in another order, so later layers' q, k, v differ in float32 bits).
    ForwardOptions pass;
    pass.wantAttention = false;
    pass.lastLogitsOnly = true;
    Session session(loadModel(probeModel(storiesPath())), pass);
    session.prefill(r->tokenIds);
    const HeadInputs in = headInputsFromSession(session, 2, 5);
    const MechanismReport expected = analyzeMechanism(in, parseMechanism("bigbird:3:1:1:7"));
    ComparePage& compare = *panel.comparePage();
    expectViewShows(*compare.exactView(), expected.exact);
    expectViewShows(*compare.variantView(), expected.variant.probs);
    expectViewShows(*compare.differenceView(), expected.variant.probs - expected.exact);
    EXPECT_EQ(tableValue(*compare.metricsTable(), "mass_kept"), metricText(expected.metrics.massKept));
    EXPECT_EQ(tableValue(*compare.metricsTable(), "kl_mean"), metricText(expected.metrics.klMean));
    EXPECT_LT(expected.metrics.massKept, 1.0); // the pattern drops some of the head's mass
    EXPECT_TRUE(compare.notes()->text().contains("RandomStream(SEED)"));

    // Head entropy across layers: 5 layers x 8 heads, the engine's head statistics.
    // The tab gathers them inside its pass, this map derives each head afterwards: the same float32 rows summed in
    // another order, so 1e-6 (a float32 cast of two doubles 1e-15 apart may round to neighbouring floats).
    const HeadEntropyMap map = headEntropyMap(session);
    Tensor entropy({ map.layers, map.heads });
    for (int64_t l = 0; l < map.layers; ++l)
        for (int64_t h = 0; h < map.heads; ++h)
            entropy.at({ l, h }) = static_cast<float>(map.at(l, h).normalizedEntropy);
    test::expectViewNear(*panel.entropyPage()->map(), entropy, 1e-6);
    EXPECT_TRUE(panel.entropyPage()->flags()->text().contains("Near-uniform"));
    EXPECT_TRUE(panel.entropyPage()->flags()->text().contains("attnscope-cli prune")); // a decoder: the next step

    // FlashAttention: one step per key block of 4, ending equal to the exact output.
    FlashPage& flash = *panel.flashPage();
    const int64_t T = in.tokens();
    EXPECT_EQ(flash.stepper()->maximum(), static_cast<int>((T + 3) / 4 - 1));
    flash.stepper()->setValue(0);
    const PlotSeries& firstMax = flash.runningPlot()->series().at(0);
    EXPECT_EQ(firstMax.x.size(), static_cast<size_t>(T)); // causal: every row sees key 0 in block 0
    // The stepper runs in float64: the float64 head to 1e-12, the model's float32 kernel (the Exact map's) to 1e-6.
    EXPECT_LE((r->flash.out - exactProbabilities(in) * in.v).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LE((r->flash.out - expected.exactOut).cwiseAbs().maxCoeff(), 1e-6);
    EXPECT_TRUE(flash.summary()->text().contains("max |flash − exact|"));

    // GQA: stories260K has 8 query heads on 4 KV heads; pooled to 1 (MQA) by default.
    GqaPage& gqa = *panel.gqaPage();
    ASSERT_EQ(gqa.table()->rowCount(), 8);
    EXPECT_EQ(gqa.table()->item(5, 1)->text(), "2");
    EXPECT_TRUE(gqa.summary()->text().contains("grouped-query"));

    // The scale plot shows the synthetic sweep: unscaled entropy falls with d_k.
    const PlotSeries& unscaled = panel.scalePage()->entropyPlot()->series().at(1);
    ASSERT_GE(unscaled.y.size(), 5u);
    EXPECT_LT(unscaled.y.back(), unscaled.y.front());

    // The d_k slider starts at the head's own d_k (8 = 2^3), where the head's curve "scaled by 1/sqrt(d_k)" is the
    // model's attention; moved to 1024 it marks that d_k and reads out the synthetic sweep and the head there.
    ScalePage& scale = *panel.scalePage();
    EXPECT_EQ(scale.dkSlider()->value(), 3);
    EXPECT_EQ(scale.entropyPlot()->markerX(), 8.0);
    const std::vector<TemperaturePoint> atDk = headScaledAs(in, powersOfTwo(1024));
    const PlotSeries& headCurve = scale.entropyPlot()->series().at(2);
    ASSERT_EQ(headCurve.y.size(), atDk.size());
    for (size_t i = 0; i < atDk.size(); ++i)
        EXPECT_EQ(headCurve.y[i], atDk[i].entropy) << i;
    EXPECT_NEAR(headCurve.y[3], meanRowEntropy(exactProbabilities(in)), 1e-12); // both float64
    scale.dkSlider()->setValue(scale.dkSlider()->maximum());
    EXPECT_EQ(scale.entropyPlot()->markerX(), 1024.0);
    EXPECT_EQ(scale.maxPlot()->markerX(), 1024.0);
    EXPECT_NEAR(scale.temperaturePlot()->markerX(), std::sqrt(1024.0 / 8.0), 1e-12);
    // The temperature curve reaches the marker (tau = 11.3 lies past the old 1/8 .. 8 axis).
    const PlotSeries& tauCurve = scale.temperaturePlot()->series().at(0);
    EXPECT_GE(tauCurve.x.back(), scale.temperaturePlot()->markerX());
    EXPECT_LE(tauCurve.x.front(), 0.125);
    // Its bound is uniform over the keys each causal row sees, mean ln(i + 1); the hottest point stays under it.
    double uniform = 0;
    for (int64_t i = 0; i < T; ++i)
        uniform += std::log(static_cast<double>(i + 1)) / static_cast<double>(T);
    EXPECT_NEAR(scale.temperaturePlot()->series().at(2).y.front(), uniform, 1e-12);
    EXPECT_LT(tauCurve.y.back(), uniform);
    EXPECT_TRUE(scale.readout()->text().contains("d_k = 1024")) << scale.readout()->text().toStdString();
    EXPECT_TRUE(scale.readout()->text().contains(QString::number(r->sweep.back().entropyUnscaled, 'f', 3)));
    EXPECT_TRUE(scale.readout()->text().contains(QString::number(atDk.back().entropy, 'f', 3)));

    // Export: every panel of every page; the heatmaps' .npy hold the engine's numbers (float32), plots become CSV.
    const QString dir = QString::fromStdString(test::makeTempDir("mechanisms-export"));
    const QStringList files = exportMechanismsData(*panel.pages(), dir);
    const Tensor exactFile = readNpy((dir + "/mechanisms_exact-vs-variant_exact.npy").toStdString());
    ASSERT_EQ(exactFile.shape(), (Shape { T, T }));
    for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < T; ++j)
            EXPECT_EQ(exactFile.at({ i, j }), static_cast<float>(expected.exact(i, j))) << i << "," << j;
    EXPECT_TRUE(files.contains(dir + "/mechanisms_exact-vs-variant_variant-exact.csv"));
    EXPECT_TRUE(files.contains(
        dir + "/mechanisms_head-entropy_" + fileStem(panel.entropyPage()->map()->caption().title) + ".npy"));
    QFile entropyCsv(dir + "/mechanisms_" + fileStem(panel.pages()->tabText(1)) + "_"
        + fileStem(scale.entropyPlot()->title()) + ".csv");
    ASSERT_TRUE(entropyCsv.open(QIODevice::ReadOnly)) << entropyCsv.fileName().toStdString() << "\n"
                                                      << files.join("\n").toStdString();
    size_t points = 0;
    for (const PlotSeries& series : scale.entropyPlot()->series())
        points += series.x.size();
    EXPECT_EQ(static_cast<size_t>(entropyCsv.readAll().count('\n')), points + 1); // a header, then series,x,y rows

    // Linear attention: the plot shows the engine's sweeps; Linformer's mean error falls as k grows. (Performer does
    // not converge by m = 1024 on this head: its q, k norms make the estimator's log-normal variance enormous.)
    const PlotSeries& linformer = panel.linearPage()->errorPlot()->series().at(0);
    const PlotSeries& performer = panel.linearPage()->errorPlot()->series().at(1);
    ASSERT_EQ(performer.y.size(), 11u);
    EXPECT_EQ(performer.y.back(), r->performerSweep.points.back().outRelErr);
    ASSERT_EQ(linformer.y.size(), 6u); // k = 1 .. 32 <= 2T
    EXPECT_LT(linformer.y.back(), 0.5 * linformer.y.front());

    // Positions: tables at this head's size (d = 8).
    panel.positionsPage()->ropeView()->flushRedraw();
    panel.positionsPage()->t5View()->flushRedraw();
    EXPECT_EQ(panel.positionsPage()->ropeView()->matrix().cols, 4);
    EXPECT_EQ(panel.positionsPage()->t5View()->matrix().rows, T);

    saveScreenshots(window, panel);
}

// The entropy page's link to pruning: a flagged head of a decoder, sent to the Intervene tab, is zeroed there on the
// same model and input, and the tab shows what removing it changes.
// A head switch or a new run while the tab is hidden computes nothing there (it held the one engine thread for a whole
// forward and the sweeps, and at 4k tokens the other views' requests waited seconds behind it); showing the tab then
// computes the head now selected.
TEST(MechanismsPanel, AHiddenTabComputesNothingUntilItIsShown)
{
    MainWindow window;
    showStories(window);
    MechanismsPanel& panel = *window.mechanismsPanel();
    QSignalSpy shown(&panel, &MechanismsPanel::resultShown);
    window.setCurrentHead(3, 2);
    QSignalSpy snapshots(&window, &MainWindow::snapshotShown);
    window.setInputText("Once upon a time, there was a big dog. It liked to run.");
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.count() >= 1, kTimeoutMs);
    QTest::qWait(600); // well past the tab's 150 ms coalescing
    EXPECT_EQ(shown.count(), 0);
    EXPECT_FALSE(panel.result());

    window.tabs()->setCurrentWidget(&panel);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, kTimeoutMs);
    ASSERT_TRUE(panel.result());
    EXPECT_EQ(panel.result()->request.layer, 3);
    EXPECT_EQ(panel.result()->request.head, 2);
}

TEST(MechanismsPanel, AFlaggedHeadIsAblatedOnTheInterveneTab)
{
    // One word repeated: stories260K's heads that look at content have nothing to prefer (near-uniform), those that
    // look at position stay sharp (on the story text none is flagged).
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    openAndRun(window, storiesPath(), "the the the the the the the the the the the the");
    MechanismsPanel& panel = *window.mechanismsPanel();
    window.tabs()->setCurrentWidget(&panel);
    panel.setSynthetic(false);
    const MechanismsPtr r = computeAndWait(panel, "exact");
    ASSERT_TRUE(r && r->entropy);
    EntropyPage& page = *panel.entropyPage();
    int64_t flagged = 0;
    for (HeadActivity a : r->entropy->activity)
        flagged += a != HeadActivity::Normal;
    ASSERT_GT(flagged, 0);
    ASSERT_EQ(page.flagged()->count(), flagged); // every flagged head, and only those, can be picked
    ASSERT_TRUE(page.ablateButton()->isEnabled());
    page.flagged()->setCurrentIndex(page.flagged()->count() - 1);
    const int64_t index = page.flagged()->currentData().toLongLong();
    ASSERT_NE(r->entropy->activity[static_cast<size_t>(index)], HeadActivity::Normal);
    const HeadRef head { index / r->entropy->heads, index % r->entropy->heads };
    EXPECT_TRUE(page.flagged()->currentText().startsWith(QStringLiteral("L%1.H%2 ").arg(head.layer).arg(head.head)));

    InterventionPanel& intervene = *window.interventionPanel();
    QSignalSpy diffShown(&intervene, &InterventionPanel::resultShown);
    page.ablateButton()->click();
    EXPECT_EQ(window.tabs()->currentWidget(), &intervene);
    ASSERT_EQ(intervene.ablations().size(), 1u);
    EXPECT_EQ(intervene.ablations()[0].heads, std::vector<HeadRef> { head });
    EXPECT_EQ(intervene.ablations()[0].mode, AblationMode::Zero);
    QTRY_VERIFY_WITH_TIMEOUT(diffShown.count() >= 1, kTimeoutMs);
    ASSERT_TRUE(intervene.result());
}

TEST(MechanismsPanel, DropsStaleAnswersAndRunsSyntheticInput)
{
    MainWindow window;
    window.show();
    MechanismsPanel& panel = *window.mechanismsPanel();
    panel.setSynthetic(true);
    QSignalSpy shown(&panel, &MechanismsPanel::resultShown);
    panel.setVariant("performer:256:1");
    panel.compute();
    panel.setVariant("linformer:8:2");
    panel.compute();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, kTimeoutMs);
    QTest::qWait(300);
    ASSERT_EQ(shown.count(), 1) << "only the latest request's answer is shown";
    EXPECT_EQ(panel.result()->request.variant, "linformer:8:2");
    EXPECT_EQ(panel.comparePage()->variantView()->matrix().cols, 8); // [T, k] over the projections
    EXPECT_EQ(tableValue(*panel.comparePage()->metricsTable(), "kl_mean"), "n/a");
    panel.pages()->setCurrentWidget(panel.gqaPage()); // synthetic input: nothing to compute for it, shown at once
    EXPECT_TRUE(panel.gqaPage()->isEnabled());
    EXPECT_TRUE(panel.gqaPage()->summary()->text().contains("needs a model"));

    QSignalSpy failed(&panel, &MechanismsPanel::failed);
    panel.setVariant("window:0");
    panel.compute();
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() >= 1, kTimeoutMs);
    EXPECT_TRUE(panel.status().contains("at least 1"));

    // Cancel stops the job in flight at its next stage: no answer arrives and the status says so. The engine thread is
    // held until the click: "exact" on the same synthetic head reuses the last result's sweeps and could otherwise end
    // before the click is made (it did in about half the runs).
    failed.clear();
    shown.clear();
    QPushButton* cancel = nullptr;
    for (QPushButton* button : panel.findChildren<QPushButton*>())
        if (button->text() == "Cancel") cancel = button;
    ASSERT_NE(cancel, nullptr);
    std::promise<void> gate;
    window.controller()->post<bool>(
        &window,
        [opened = gate.get_future().share()](EngineContext&) {
            opened.wait();
            return true;
        },
        [](bool) {}, {});
    panel.setVariant("exact");
    panel.compute();
    cancel->click();
    gate.set_value();
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() >= 1, kTimeoutMs);
    EXPECT_TRUE(panel.status().contains("cancelled")) << panel.status().toStdString();
    QTest::qWait(300);
    EXPECT_EQ(shown.count(), 0);
}

TEST(MechanismsPanel, RunsAnEncoderHead)
{
    // BERT through the q/k/v hook: the tab offers its heads and shows the engine's bidirectional attention.
    const std::string bert = test::sharedPath("fixtures/hf-tiny/bert");
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    openAndRun(window, bert, "The quick brown fox [MASK] over the lazy dog.");
    MechanismsPanel& panel = *window.mechanismsPanel();
    window.tabs()->setCurrentWidget(&panel);
    window.setCurrentHead(1, 3);
    panel.setSynthetic(false);
    const MechanismsPtr r = computeAndWait(panel, "window:2");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->inputs.layer, 1);
    ASSERT_EQ(r->inputs.head, 3);
    EXPECT_FALSE(r->inputs.causal);
    Session session(loadModel(probeModel(bert)));
    session.prefill(r->tokenIds);
    const MechanismReport expected = analyzeMechanism(headInputsFromSession(session, 1, 3), parseMechanism("window:2"));
    expectViewShows(*panel.comparePage()->exactView(), expected.exact);
    expectViewShows(*panel.comparePage()->variantView(), expected.variant.probs);
    EXPECT_GT(expected.exact(0, r->inputs.tokens() - 1), 0.0); // bidirectional: the first query sees the last key

    // BERT's learned position table on the Positions page: cos(p_i, p_j) of the input's positions, ones on the
    // diagonal.
    const int64_t T = r->inputs.tokens();
    ASSERT_EQ(r->positions->learned.rows(), T);
    expectViewShows(*panel.positionsPage()->learnedView(), r->positions->learned);
    for (int64_t i = 0; i < T; ++i)
        EXPECT_NEAR(r->positions->learned(i, i), 1.0, 1e-12);
    // The Intervene tab changes decoders only: no ablation link for an encoder's heads.
    EXPECT_FALSE(panel.entropyPage()->ablateButton()->isEnabled());
}

} // namespace
} // namespace attn::ui

namespace attn::ui {
namespace {

/// stories260K on a fixed 40-token input, opened as the main window's registry would hold it.
struct StoriesRequest {
    ModelRegistry models;
    std::shared_ptr<const Model> held; ///< the registry keeps a model only while someone holds it
    MechanismsRequest request;
    StoriesRequest()
    {
        held = models.model(probeModel(storiesPath()));
        request.modelPath = storiesPath();
        for (int64_t i = 0; i < 40; ++i)
            request.sourceIds.push_back(1 + (i * 37) % 500);
        request.layer = 2;
        request.head = 5;
        request.variant = "window:4";
    }
};

// The entropy map gathered from the probabilities the tab's pass computes (no stored attention, no second pass)
// equals the map derived head by head from a session that stored everything: the same float32 rows, summed in the
// same order, so within 1e-12.
TEST(MechanismsPanel, EntropyGatheredInThePassEqualsTheDerivedMap)
{
    StoriesRequest s;
    const auto model = s.held;
    Session plain(model);
    plain.prefill(s.request.sourceIds);
    const HeadEntropyMap expected = headEntropyMap(plain);
    const ModelConfig& c = model->config();
    HeadEntropyCollector collector(c.numLayers, c.numHeads, 40, Session::decoderMask(c));
    ForwardOptions options;
    options.wantAttention = false;
    options.observeAttention = [&collector](int64_t l, int64_t h, int64_t q, int64_t rows, const float* p) {
        collector.add(l, h, q, rows, p);
    };
    Session observed(model, options);
    observed.prefill(s.request.sourceIds);
    const HeadEntropyMap map = collector.map(observed);
    ASSERT_EQ(map.stats.size(), expected.stats.size());
    for (size_t i = 0; i < map.stats.size(); ++i) {
        EXPECT_NEAR(map.stats[i].entropy, expected.stats[i].entropy, 1e-12) << i;
        EXPECT_NEAR(map.stats[i].normalizedEntropy, expected.stats[i].normalizedEntropy, 1e-12) << i;
        EXPECT_EQ(map.activity[i], expected.activity[i]) << i;
    }
    // A head never observed (a backend that does not call the observer) is derived instead.
    HeadEntropyCollector none(c.numLayers, c.numHeads, 40, Session::decoderMask(c));
    EXPECT_NEAR(none.map(plain).stats[7].entropy, expected.stats[7].entropy, 1e-12);
}

// A head or variant switch on the same input reuses the last request's model pass (the cache keeps the same heads)
// and gives the numbers a request without a cache gives; another layer or input reads the model again.
TEST(MechanismsPanel, ARequestOnTheSameInputReusesTheModelsPass)
{
    StoriesRequest s;
    MechanismsCache cache;
    const MechanismsPtr first = computeMechanisms(
        s.request, s.models, [] { return true; }, &cache);
    const auto heads = cache.heads;
    ASSERT_TRUE(heads);
    s.request.head = 1;
    s.request.variant = "strided:3";
    const MechanismsPtr second = computeMechanisms(
        s.request, s.models, [] { return true; }, &cache);
    EXPECT_EQ(cache.heads, heads) << "a head switch ran the model again";
    EXPECT_EQ(second->positions, first->positions) << "the position tables were computed again";
    const MechanismsPtr fresh = computeMechanisms(s.request, s.models, [] { return true; });
    EXPECT_EQ(second->inputs.head, 1);
    EXPECT_LE((second->report.variant.probs - fresh->report.variant.probs).cwiseAbs().maxCoeff(), 0.0);
    EXPECT_EQ(second->entropy->stats.size(), fresh->entropy->stats.size());
    EXPECT_EQ(second->linformerSweep.points.back().outRelErr, fresh->linformerSweep.points.back().outRelErr);
    EXPECT_LE((second->alibi - fresh->alibi).cwiseAbs().maxCoeff(), 0.0);
    EXPECT_NE(second->alibi(5, 0), first->alibi(5, 0)) << "ALiBi is the head's own slope";
    s.request.layer = 3;
    computeMechanisms(
        s.request, s.models, [] { return true; }, &cache);
    EXPECT_NE(cache.heads, heads);
    EXPECT_EQ(cache.heads->layer.front().layer, 3);
}

// A head switch computes what the visible page shows (at 1,024 tokens the hidden Linear attention page's sweeps were
// most of a switch's 5.8 s): the other pages compute their part when opened, on the same head from the last result,
// and a page not looked at is not given the result (its widgets cost the GUI thread).
TEST(MechanismsPanel, AHiddenPageComputesNothingUntilItIsOpened)
{
    MainWindow window;
    showStories(window);
    MechanismsPanel& panel = *window.mechanismsPanel();
    window.setCurrentHead(1, 2);
    QSignalSpy shown(&panel, &MechanismsPanel::resultShown);
    window.tabs()->setCurrentWidget(&panel);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1, kTimeoutMs);
    MechanismsPtr r = panel.result();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->parts, unsigned { kComparePart }); // Exact vs variant is in front
    EXPECT_TRUE(r->linformerSweep.points.empty());
    EXPECT_TRUE(r->temperature.empty());
    EXPECT_FALSE(r->positions);
    EXPECT_TRUE(panel.linearPage()->errorPlot()->series().empty());

    panel.pages()->setCurrentWidget(panel.linearPage());
    EXPECT_FALSE(panel.linearPage()->isEnabled()) << "the page showed nothing new without saying so";
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 2, kTimeoutMs);
    r = panel.result();
    EXPECT_EQ(r->request.head, 2);
    EXPECT_EQ(r->parts, unsigned { kComparePart | kLinearPart });
    EXPECT_FALSE(r->linformerSweep.points.empty());
    EXPECT_TRUE(panel.linearPage()->isEnabled());
    EXPECT_EQ(panel.linearPage()->errorPlot()->series().at(0).y.back(), r->linformerSweep.points.back().outRelErr);
    const ApproximationSweep linformer = r->linformerSweep;

    // Positions on the same head keeps the sweeps; a head switch there computes the positions alone.
    panel.pages()->setCurrentWidget(panel.positionsPage());
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 3, kTimeoutMs);
    EXPECT_EQ(panel.result()->parts, unsigned { kComparePart | kLinearPart | kPositionsPart });
    EXPECT_EQ(panel.result()->linformerSweep.points.back().outRelErr, linformer.points.back().outRelErr);
    panel.setHead(1, 3);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 4, kTimeoutMs);
    r = panel.result();
    EXPECT_EQ(r->request.head, 3);
    EXPECT_EQ(r->parts, unsigned { kComparePart | kPositionsPart });
    EXPECT_TRUE(r->linformerSweep.points.empty());
}

// Linformer's projections are the input's, not the head's: the sweep on the next head draws none of them again and
// gives the numbers of a request without a cache.
TEST(MechanismsPanel, AHeadSwitchOnTheLinearPageDrawsNoProjectionAgain)
{
    StoriesRequest s;
    s.request.parts = kLinearPart;
    MechanismsCache cache;
    computeMechanisms(
        s.request, s.models, [] { return true; }, &cache);
    const int64_t draws = cache.linformerDraws.draws();
    EXPECT_GT(draws, 0);
    s.request.head = 4;
    const MechanismsPtr next = computeMechanisms(
        s.request, s.models, [] { return true; }, &cache);
    EXPECT_EQ(cache.linformerDraws.draws(), draws);
    const MechanismsPtr fresh = computeMechanisms(s.request, s.models, [] { return true; });
    ASSERT_EQ(next->linformerSweep.points.size(), fresh->linformerSweep.points.size());
    for (size_t i = 0; i < next->linformerSweep.points.size(); ++i)
        EXPECT_EQ(next->linformerSweep.points[i].outRelErr, fresh->linformerSweep.points[i].outRelErr) << i;
}

} // namespace
} // namespace attn::ui
