// SPDX-License-Identifier: MIT
// The Logit lens tab on the demo decoder: shown, it reads out every layer at the selected position; its last row is
// the model's own prediction (an independent prefill through the engine API), the plot draws the table's p(chosen),
// and another position shows that position's numbers without a new pass.
#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "demo_models.h"
#include "intervention/decode_lens_view.h"
#include "intervention/intervention_runner.h"
#include "intervention/logit_lens_panel.h"
#include "main_window.h"
#include "mechanisms/line_plot.h"
#include "model/model_loader.h"
#include "session/session.h"
#include "window_runs.h"
#include "window_screenshots.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QTableWidgetItem>
#include <QTest>

#include <qcustomplot.h>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 60000;
// The lens's last row is the kept pass's own logits; the reference is another whole prefill of the same tokens with
// the same kernels, so only BLAS threading could move a logit (InterventionReuse: 1e-5).
constexpr double kProbTolerance = 1e-5;

/// On the Decode tab: the prompt "Ben went to the park", then one step.
void promptAndStep(MainWindow& window, DecodePanel* decode)
{
    window.tabs()->setCurrentWidget(decode);
    decode->setPromptText("Ben went to the park");
    decode->findChild<QPushButton*>("promptButton")->click();
    QTRY_VERIFY_WITH_TIMEOUT(decode->controller()->steps().size() > 3, kTimeoutMs);
    const size_t prompted = decode->controller()->steps().size();
    decode->stepButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(decode->controller()->steps().size(), prompted + 1, kTimeoutMs);
}

TEST(LogitLensPanel, LastLayerIsTheModelsPredictionAndPositionsSwitch)
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QString path;
    for (const DemoModel& d : bundledDemoModels())
        if (d.path.endsWith("/demo-stories-llama")) path = d.path;
    ASSERT_FALSE(path.isEmpty());
    QSignalSpy run(&window, &MainWindow::snapshotShown);
    window.openModel(path);
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    window.setInputText("Ben said the magic words: gold wind frog lamp. Then he said again: gold wind");
    QTRY_VERIFY_WITH_TIMEOUT(run.count() >= 1, kTimeoutMs);

    LogitLensPanel* lens = window.lensPanel();
    QSignalSpy shown(lens, &LogitLensPanel::resultShown);
    window.tabs()->setCurrentWidget(lens);
    QTRY_VERIFY_WITH_TIMEOUT(lens->result() != nullptr, kTimeoutMs);
    ASSERT_TRUE(lens->status().startsWith("After")) << lens->status().toStdString();

    const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(path.toStdString()));
    ASSERT_TRUE(model);
    std::vector<int64_t> ids;
    for (const TokenChip& chip : window.runResult()->source)
        ids.push_back(chip.id);
    Session session(model);
    const auto real = session.prefill(ids);
    const auto top = topTokens(real->logits, 5);
    const int64_t layers = model->config().numLayers, n = static_cast<int64_t>(ids.size());
    ASSERT_EQ(lens->table()->rowCount(), layers + 1);
    EXPECT_EQ(lens->position(), n - 1) << "the prediction after the whole input first";
    for (const int64_t at : { n - 1, int64_t(3) }) {
        lens->setPosition(static_cast<int>(at));
        const LogitLens& l = lens->result()->lens;
        EXPECT_EQ(l.chosen[static_cast<size_t>(at)], top[static_cast<size_t>(at)][0].id);
        const double shownLast = lens->table()->item(static_cast<int>(layers), 1)->text().toDouble();
        EXPECT_NEAR(shownLast, top[static_cast<size_t>(at)][0].probability, kProbTolerance + 1e-3 * shownLast)
            << "4 significant digits in the table";
        const std::vector<double>& plotted = lens->chosenPlot()->series().at(0).y;
        ASSERT_EQ(static_cast<int64_t>(plotted.size()), layers + 1);
        for (int64_t r = 0; r <= layers; ++r)
            EXPECT_DOUBLE_EQ(plotted[static_cast<size_t>(r)], l.chosenProbability.data()[r * n + at]);
        EXPECT_NEAR(plotted.back(), top[static_cast<size_t>(at)][0].probability, kProbTolerance);
        // The x axis names each readout as the table's row does: numbered "layers applied" 0..L, the plot's 1 was
        // the table's "layer 0".
        QCustomPlot* plot = lens->chosenPlot()->plot();
        plot->replot();
        ASSERT_EQ(plot->xAxis->tickVector().size(), layers + 1);
        for (int64_t r = 0; r <= layers; ++r) {
            EXPECT_EQ(plot->xAxis->tickVector()[r], static_cast<double>(r));
            EXPECT_EQ(plot->xAxis->tickVectorLabels()[r].toStdString(),
                lens->table()->item(static_cast<int>(r), 0)->text().toStdString());
        }
        EXPECT_EQ(plot->xAxis->label(), lens->table()->horizontalHeaderItem(0)->text());
        for (size_t r = 0; r < 5; ++r)
            EXPECT_NEAR(l.top.back()[static_cast<size_t>(at)][r].probability,
                top[static_cast<size_t>(at)][r].probability, kProbTolerance);
    }
    EXPECT_EQ(shown.count(), 1) << "switching positions needs no new pass";
    test::saveScreenshots(window, "lens");
}

// The Decode tab's Lens button opens the lens on the timeline's tokens up to the step shown.
TEST(LogitLensPanel, DecodeTabsLensReadsItsTimeline)
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    for (const DemoModel& d : bundledDemoModels())
        if (d.path.endsWith("/demo-stories-llama")) window.openModel(d.path);
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    DecodePanel* decode = window.decodePanel();
    ASSERT_NO_FATAL_FAILURE(promptAndStep(window, decode));
    decode->flushRedraw();

    LogitLensPanel* lens = window.lensPanel();
    decode->findChild<QPushButton*>("decodeLensButton")->click();
    EXPECT_EQ(window.tabs()->currentWidget(), lens);
    QTRY_VERIFY_WITH_TIMEOUT(lens->result() != nullptr, kTimeoutMs);
    const auto& steps = decode->controller()->steps();
    ASSERT_EQ(lens->result()->tokens.size(), steps.size());
    for (size_t i = 0; i < steps.size(); ++i)
        EXPECT_EQ(lens->result()->tokens[i], steps[i]->token.id) << i;
    EXPECT_TRUE(lens->status().contains("Decode tab")) << lens->status().toStdString();
    // The lens at the step before the last predicts, in its last layer, the token greedy decoding then chose.
    lens->setPosition(static_cast<int>(steps.size()) - 2);
    EXPECT_EQ(lens->result()->lens.chosen[steps.size() - 2], steps.back()->token.id);
}

// The Decode tab's own lens view reads out the step shown: after scrubbing back one step, its last layer predicts the
// token greedy decoding then chose, with the probability an independent prefill of those tokens gives it.
TEST(LogitLensPanel, DecodeTabShowsTheLensOfTheStepShown)
{
    MainWindow window;
    const QString path = test::demoDecoderPath();
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, path));
    DecodePanel* decode = window.decodePanel();
    ASSERT_NO_FATAL_FAILURE(promptAndStep(window, decode));
    const auto& steps = decode->controller()->steps();
    const int64_t shown = static_cast<int64_t>(steps.size()) - 2;
    decode->showStep(shown);
    decode->flushRedraw();
    DecodeLensView* lens = decode->lensView();
    ASSERT_TRUE(lens->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(
        lens->result() && static_cast<int64_t>(lens->result()->tokens.size()) == shown + 1, kTimeoutMs);
    std::vector<int64_t> ids;
    for (int64_t i = 0; i <= shown; ++i)
        ids.push_back(steps[static_cast<size_t>(i)]->token.id);
    EXPECT_EQ(lens->result()->tokens, ids);
    const LogitLens& l = lens->result()->lens;
    EXPECT_EQ(l.chosen.back(), steps.back()->token.id) << "greedy chose the lens's final prediction";
    const auto model = std::dynamic_pointer_cast<const DecoderModel>(loadModel(path.toStdString()));
    Session session(model);
    const auto top = topTokens(session.prefill(ids)->logits, 1);
    const int64_t layers = model->config().numLayers, n = static_cast<int64_t>(ids.size());
    ASSERT_EQ(lens->table()->rowCount(), layers + 1);
    EXPECT_NEAR(l.chosenProbability.data()[layers * n + n - 1], top.back()[0].probability, kProbTolerance);
    EXPECT_NEAR(lens->table()->item(static_cast<int>(layers), 1)->text().toDouble(), top.back()[0].probability, 5e-4)
        << "4 significant digits in the table";
    test::saveScreenshots(window, "decode-lens");
}

} // namespace
} // namespace attn::ui
