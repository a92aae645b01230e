// SPDX-License-Identifier: MIT
// The decode panel on stories260K, offscreen: Run/Pause (Pause within one step), Back, a forced token by clicking
// the probability chart, the keyboard, scrubbing the timeline and the heatmap growing one row per step.
#include "decode/attention_strip_view.h"
#include "decode/branch_tree_view.h"
#include "decode/decode_panel.h"
#include "decode/kv_cache_view.h"
#include "decode/probability_chart.h"
#include "decode/timeline_view.h"
#include "export/figure_export.h"
#include "intervention/decode_lens_view.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"

#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTableWidget>
#include <QTest>

#include <qcustomplot.h>

#include <gtest/gtest.h>

#include <algorithm>

namespace attn::ui {
namespace {

class DecodePanelTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        m_panel = std::make_unique<DecodePanel>();
        m_panel->resize(1200, 760);
        QSignalSpy opened(controller(), &DecodeController::opened);
        m_panel->openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 30000);
        m_panel->setPromptText("Once upon a time");
        QSignalSpy changed(controller(), &DecodeController::timelineChanged);
        QTest::mouseClick(m_panel->findChild<QPushButton*>("promptButton"), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(length() > 1, 10000);
        m_prompt = length();
    }
    DecodeController* controller() const { return m_panel->controller(); }
    size_t length() const { return controller()->steps().size(); }
    void stepOnce()
    {
        const size_t before = length();
        m_panel->stepButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(length(), before + 1, 10000);
    }

    std::unique_ptr<DecodePanel> m_panel;
    size_t m_prompt = 0; ///< BOS + the prompt's tokens
};

TEST_F(DecodePanelTest, EnterInThePromptStartsOverAndGreedyStepsSayGreedy)
{
    stepOnce();
    EXPECT_EQ(controller()->steps().back()->origin, TokenOrigin::Greedy);
    m_panel->flushRedraw();
    EXPECT_TRUE(m_panel->findChild<QLabel*>("decodeStatus")->text().contains("(greedy)"))
        << m_panel->findChild<QLabel*>("decodeStatus")->text().toStdString();
    auto* prompt = m_panel->findChild<QLineEdit*>("decodePrompt");
    ASSERT_NE(prompt, nullptr);
    prompt->setText("Once upon");
    QTest::keyClick(prompt, Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(length() < m_prompt && length() > 1, 10000); // the shorter prompt replaced the timeline
    for (const DecodeStepPtr& s : controller()->steps())
        EXPECT_EQ(s->origin, TokenOrigin::Prompt);
}

TEST_F(DecodePanelTest, TheStripShowsTheCurrentStepsDerivedRows)
{
    // stories260K's rows are derived, not kept by the steps: the strip draws the rows the engine derived for the
    // current position, one pixel row per layer and head, one column per key so far.
    QSignalSpy rows(controller(), &DecodeController::stepRowsReady);
    stepOnce();
    m_panel->flushRedraw();
    const int64_t position = static_cast<int64_t>(length()) - 1;
    QTRY_VERIFY_WITH_TIMEOUT(!rows.isEmpty() && rows.last().at(0).toLongLong() == position, 10000);
    ASSERT_TRUE(controller()->steps().back()->attention.empty());
    const auto* strip = m_panel->findChild<AttentionStripView*>();
    ASSERT_NE(strip, nullptr);
    const DecodeModelInfo& info = *controller()->info();
    EXPECT_EQ(strip->image().height(), info.numLayers * info.numHeads);
    EXPECT_EQ(strip->image().width(), position + 1);
    // Its brightest key per (layer, head) is the derived row's largest weight.
    const auto derived = rows.last().at(1).value<StepRowsPtr>();
    for (int64_t l = 0; l < info.numLayers; ++l)
        for (int64_t h = 0; h < info.numHeads; ++h) {
            const float* row = (*derived)[static_cast<size_t>(l)].data() + h * (position + 1);
            const int64_t best = std::max_element(row, row + position + 1) - row;
            EXPECT_EQ(strip->image().pixel(static_cast<int>(best), static_cast<int>(l * info.numHeads + h)),
                colormapColor(Colormap::Viridis, 1.0).rgb())
                << "layer " << l << " head " << h;
        }
}

TEST_F(DecodePanelTest, RunThenPauseStopsWithinOneStep)
{
    QSignalSpy ended(controller(), &DecodeController::ended);
    // Pause from the timeline's own signal once 12 positions are shown: polling from the test let a quiet machine
    // decode all 346 tokens to the end of the text between two looks.
    quint64 startedAtPause = 0;
    bool clickedPause = false;
    const auto connection = QObject::connect(controller(), &DecodeController::timelineChanged, m_panel.get(), [&] {
        if (clickedPause || length() < 12) return;
        clickedPause = true;
        m_panel->runButton()->click();
        startedAtPause = controller()->stepsStarted();
    });
    m_panel->runButton()->click();
    EXPECT_TRUE(controller()->running());
    EXPECT_EQ(m_panel->runButton()->text(), "&Pause");
    QTRY_VERIFY_WITH_TIMEOUT(clickedPause, 10000);
    QObject::disconnect(connection);
    EXPECT_FALSE(controller()->running());
    EXPECT_EQ(m_panel->runButton()->text(), "&Run");
    QTest::qWait(300);
    EXPECT_LE(controller()->stepsStarted(), startedAtPause + 1);
    ASSERT_TRUE(ended.isEmpty()) << "the run ended by itself before Pause";
    const size_t paused = length();
    QTest::qWait(200);
    EXPECT_EQ(length(), paused);
    EXPECT_EQ(static_cast<quint64>(paused), m_prompt + controller()->stepsStarted()); // prompt + every started step

    // Run again continues the same timeline.
    m_panel->runButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(length() >= paused + 5, 10000);
    m_panel->runButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!controller()->running(), 5000);
}

TEST_F(DecodePanelTest, BackRemovesOneTokenAndTheHeatmapFollows)
{
    for (int i = 0; i < 4; ++i)
        stepOnce();
    const auto n = static_cast<int64_t>(m_prompt) + 4;
    ASSERT_EQ(static_cast<int64_t>(length()), n);
    const int64_t kept = controller()->steps()[static_cast<size_t>(n - 2)]->token.id;
    m_panel->backButton()->click();
    QTRY_COMPARE_WITH_TIMEOUT(static_cast<int64_t>(length()), n - 1, 10000);
    EXPECT_EQ(controller()->steps().back()->token.id, kept);
    m_panel->flushRedraw();
    EXPECT_EQ(m_panel->currentIndex(), n - 2);
    QTRY_COMPARE_WITH_TIMEOUT(m_panel->heatmapPositions(), n - 1, 5000);
    m_panel->flushRedraw();
    EXPECT_EQ(m_panel->heatmap()->matrix().rows, n - 1);
    stepOnce();
    QTRY_COMPARE_WITH_TIMEOUT(m_panel->heatmapPositions(), n, 5000);
    m_panel->flushRedraw();
    EXPECT_EQ(m_panel->heatmap()->matrix().rows, n);
    EXPECT_TRUE(m_panel->kvCache()->summary().startsWith(QString("%1 positions cached").arg(n)));
}

TEST_F(DecodePanelTest, ALongPromptsOverviewIsDerivedOnTheEngineThread)
{
    // Past the heatmap's 256-token window the view shows an overview, a pass over the whole head. Computed where the
    // view asked, it blocked the GUI thread for seconds after a 2,048-token prompt; now the engine thread derives
    // it: when the snapshot is drawn the view has only asked (and says "computing…"), the overview follows.
    QString text;
    while (text.size() < 1500)
        text += "Once upon a time there was a little girl. ";
    m_panel->setPromptText(text);
    bool askedOnly = false;
    QObject::connect(controller(), &DecodeController::snapshotReady, m_panel.get(), [&](qint64 positions) {
        if (positions <= 256 || positions != static_cast<qint64>(length())) return;
        m_panel->flushRedraw(); // draws the new snapshot now; a derivation's answer needs the event loop
        askedOnly = m_panel->heatmap()->isDeriving();
    });
    QTest::mouseClick(m_panel->findChild<QPushButton*>("promptButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(length() > 256 && m_panel->heatmapPositions() == static_cast<int64_t>(length()), 60000);
    EXPECT_TRUE(askedOnly);
    QTRY_VERIFY_WITH_TIMEOUT(!m_panel->heatmap()->isDeriving(), 30000);
    m_panel->flushRedraw();
    const HeatmapMatrix& overview = m_panel->heatmap()->matrix(); // every position, in blocks or one by one
    ASSERT_FALSE(overview.values.empty());
    EXPECT_GE(overview.rows * overview.block, static_cast<int64_t>(length()));
    EXPECT_GE(overview.cols * overview.block, static_cast<int64_t>(length()));
}

TEST_F(DecodePanelTest, ExportFigureIsTheProbabilityChartWithVectorText)
{
    stepOnce();
    m_panel->flushRedraw();
    // Export > figure draws the widget the panel marks: the chart, not the KV cache or timeline plots.
    auto* figure = m_panel->findChild<QCustomPlot*>(kFigureObjectName);
    ASSERT_EQ(figure, m_panel->chart()->plot());
    const QString svg = QString::fromStdString(test::makeTempDir("decode-export") + "/decode.svg");
    exportWidget(*figure, svg, FigureFormat::Svg, { QSize(420, 360), 96 });
    QFile file(svg);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray content = file.readAll();
    EXPECT_TRUE(content.contains(">probability<"));
}

TEST_F(DecodePanelTest, ClickingACandidateForcesIt)
{
    for (int i = 0; i < 3; ++i)
        stepOnce();
    m_panel->flushRedraw();
    ProbabilityChart* chart = m_panel->chart();
    ASSERT_EQ(chart->stepShown(), controller()->steps().back());
    EXPECT_EQ(chart->chosenIndex(), 0); // greedy picks the most likely
    chart->plot()->replot();
    const DecodeStepPtr replaced = chart->stepShown();
    const int64_t other = replaced->candidates.at(2).token.id;
    QTest::mouseClick(chart->plot(), Qt::LeftButton, {}, chart->barCenter(2));
    QTRY_VERIFY_WITH_TIMEOUT(controller()->steps().back()->token.id == other, 10000);
    EXPECT_EQ(length(), m_prompt + 3);
    EXPECT_EQ(controller()->steps().back()->origin, TokenOrigin::Forced);
    m_panel->flushRedraw();
    EXPECT_EQ(chart->chosenIndex(), 2);
    stepOnce(); // decoding continues from the branch
    EXPECT_EQ(controller()->steps()[m_prompt + 2]->token.id, other);

    // The replaced timeline is drawn as a lane of the branch tree, forking where it leaves this one; clicking it
    // restores its tokens exactly, and clicking the forced lane (now the branch) brings those back.
    m_panel->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(m_panel.get()));
    BranchTreeView* tree = m_panel->branchTree();
    ASSERT_TRUE(tree->isVisible());
    ASSERT_EQ(tree->lanes().size(), 2u);
    EXPECT_EQ(tree->lanes()[1].fork, static_cast<int64_t>(m_prompt + 2));
    EXPECT_EQ(tree->lanes()[1].parent, 0);
    const auto idsOf = [](const std::vector<DecodeStepPtr>& steps) {
        std::vector<std::pair<int64_t, TokenOrigin>> out;
        for (const DecodeStepPtr& s : steps)
            out.emplace_back(s->token.id, s->origin);
        return out;
    };
    const auto forced = idsOf(controller()->steps());
    ASSERT_EQ(controller()->branches().size(), 1u);
    const auto before = idsOf(controller()->branches()[0]);
    EXPECT_EQ(before[m_prompt + 2].first, replaced->token.id);
    QTest::mouseClick(tree, Qt::LeftButton, {}, tree->laneRect(1).center());
    QTRY_VERIFY_WITH_TIMEOUT(idsOf(controller()->steps()) == before, 10000);
    ASSERT_EQ(tree->lanes().size(), 2u); // the forced timeline is the other lane now
    EXPECT_EQ(tree->lanes()[1].fork, static_cast<int64_t>(m_prompt + 2));
    QTest::mouseClick(tree, Qt::LeftButton, {}, tree->laneRect(1).center());
    QTRY_VERIFY_WITH_TIMEOUT(idsOf(controller()->steps()) == forced, 10000);
    QTest::mouseClick(tree, Qt::LeftButton, {}, tree->laneRect(0).center()); // the shown lane: nothing happens
    QTest::qWait(100);
    EXPECT_EQ(idsOf(controller()->steps()), forced);
}

TEST_F(DecodePanelTest, KeyboardStepsBacksAndRuns)
{
    m_panel->show();
    QApplication::setActiveWindow(m_panel.get());
    ASSERT_TRUE(QTest::qWaitForWindowActive(m_panel.get()));
    m_panel->heatmap()->setFocus();
    QTest::keyClick(m_panel->heatmap(), Qt::Key_Right);
    QTRY_COMPARE_WITH_TIMEOUT(length(), m_prompt + 1, 10000);
    QTest::keyClick(m_panel->heatmap(), Qt::Key_Right);
    QTRY_COMPARE_WITH_TIMEOUT(length(), m_prompt + 2, 10000);
    QTest::keyClick(m_panel->heatmap(), Qt::Key_Left);
    QTRY_COMPARE_WITH_TIMEOUT(length(), m_prompt + 1, 10000);
    QTest::keyClick(m_panel->heatmap(), Qt::Key_Space);
    EXPECT_TRUE(controller()->running());
    QTest::keyClick(m_panel->heatmap(), Qt::Key_Space);
    EXPECT_FALSE(controller()->running());
}

TEST_F(DecodePanelTest, ScrubbingShowsAnEarlierStepAsItWas)
{
    for (int i = 0; i < 6; ++i)
        stepOnce();
    const int64_t t = static_cast<int64_t>(m_prompt) + 1;
    const DecodeStepPtr atT = controller()->steps()[static_cast<size_t>(t)];
    m_panel->flushRedraw(); // the slider's range as the user sees it
    m_panel->timeline()->slider()->setValue(static_cast<int>(t));
    m_panel->flushRedraw();
    EXPECT_EQ(m_panel->currentIndex(), t);
    EXPECT_EQ(m_panel->chart()->stepShown(), atT);
    const QCPItemStraightLine* cursor = m_panel->timeline()->cursor();
    EXPECT_TRUE(cursor->visible());
    EXPECT_EQ(cursor->point1->coords().x(), static_cast<double>(t)); // a vertical line at the step
    EXPECT_EQ(cursor->point2->coords().x(), static_cast<double>(t));
    QTRY_COMPARE_WITH_TIMEOUT(m_panel->heatmapPositions(), t + 1, 5000);
    m_panel->flushRedraw();
    EXPECT_EQ(m_panel->heatmap()->matrix().rows, t + 1);
    // New steps do not move a scrubbed view.
    stepOnce();
    m_panel->flushRedraw();
    EXPECT_EQ(m_panel->currentIndex(), t);
    EXPECT_EQ(m_panel->chart()->stepShown(), atT);
}

/// A prompt of more tokens than stories260K's 512 positions.
QString overLimitPrompt()
{
    return QString("a b ").repeated(400);
}

TEST_F(DecodePanelTest, ARefusedPromptKeepsTheTimelineAndStepGoesOnFromIt)
{
    stepOnce();
    std::vector<int64_t> before;
    for (const DecodeStepPtr& s : controller()->steps())
        before.push_back(s->token.id);
    QSignalSpy errors(m_panel.get(), &DecodePanel::errorShown);
    m_panel->setPromptText(overLimitPrompt());
    QTest::mouseClick(m_panel->findChild<QPushButton*>("promptButton"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, 10000);
    EXPECT_TRUE(m_panel->lastError().contains("at most 512")) << m_panel->lastError().toStdString();
    ASSERT_EQ(length(), before.size()); // the panel still shows the old timeline...
    // ...and the engine still has it: the next step is the one after it (it had cleared the timeline before the
    // length check, so the step found none and failed).
    stepOnce();
    EXPECT_EQ(errors.count(), 1);
    for (size_t i = 0; i < before.size(); ++i)
        EXPECT_EQ(controller()->steps()[i]->token.id, before[i]) << "position " << i;
    EXPECT_EQ(controller()->steps().back()->origin, TokenOrigin::Greedy);
}

TEST_F(DecodePanelTest, ARefusedPromptKeepsTheBranchesAndAnAcceptedOneDropsThem)
{
    for (int i = 0; i < 3; ++i)
        stepOnce();
    const int64_t position = static_cast<int64_t>(m_prompt) + 1;
    const DecodeStepPtr replaced = controller()->steps()[static_cast<size_t>(position)];
    controller()->force(position, replaced->candidates.at(1).token.id);
    QTRY_COMPARE_WITH_TIMEOUT(length(), m_prompt + 2, 10000);
    ASSERT_EQ(controller()->branches().size(), 1u);
    m_panel->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(m_panel.get()));
    ASSERT_EQ(m_panel->branchTree()->lanes().size(), 2u);

    // Refused: the branch stays, in the controller and in the drawn tree (the prompt used to drop it before the
    // engine had answered).
    QSignalSpy errors(m_panel.get(), &DecodePanel::errorShown);
    m_panel->setPromptText(overLimitPrompt());
    QTest::mouseClick(m_panel->findChild<QPushButton*>("promptButton"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, 10000);
    ASSERT_EQ(controller()->branches().size(), 1u);
    EXPECT_EQ(controller()->branches()[0][static_cast<size_t>(position)]->token.id, replaced->token.id);
    EXPECT_EQ(m_panel->branchTree()->lanes().size(), 2u);
    EXPECT_TRUE(m_panel->branchTree()->isVisible());

    // Accepted: the branches of the old prompt go with its timeline.
    QSignalSpy changed(controller(), &DecodeController::timelineChanged);
    m_panel->setPromptText("The dog");
    QTest::mouseClick(m_panel->findChild<QPushButton*>("promptButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!changed.isEmpty() && changed.last().at(0).toLongLong() == 0, 10000);
    for (const DecodeStepPtr& s : controller()->steps())
        EXPECT_EQ(s->origin, TokenOrigin::Prompt); // the new prompt's timeline
    EXPECT_TRUE(controller()->branches().empty());
    EXPECT_FALSE(m_panel->branchTree()->isVisible());
}

/// A step at position 5 whose candidates are `texts` with `probabilities`, the chosen one `chosen`.
DecodeStepPtr candidatesStep(
    const std::vector<std::string>& texts, const std::vector<float>& probabilities, size_t chosen)
{
    auto step = std::make_shared<DecodeStep>();
    step->position = 5;
    for (size_t i = 0; i < texts.size(); ++i)
        step->candidates.push_back({ { texts[i], static_cast<int64_t>(100 + i), false }, probabilities[i] });
    step->token = step->candidates.at(chosen).token;
    return step;
}

TEST(ProbabilityChart, KeepsItsLabelsAndRangeWhileTheCandidatesStayAndRedrawsNothingShownAlready)
{
    ProbabilityChart chart;
    chart.resize(240, 200);
    const DecodeStepPtr first = candidatesStep({ "the", "a", "one" }, { 0.5f, 0.3f, 0.1f }, 0);
    chart.setStep(first);
    const auto ticker = chart.plot()->yAxis->ticker();
    const int labels = chart.labelChanges(), replots = chart.replots();
    EXPECT_DOUBLE_EQ(chart.plot()->xAxis->range().upper, 0.6); // the tenth above 1.1 x the largest bar
    chart.setStep(first); // a redraw of the step shown
    EXPECT_EQ(chart.replots(), replots);
    // The next step with the same candidates: new bars, the same ticker, labels and probability axis.
    chart.setStep(candidatesStep({ "the", "a", "one" }, { 0.52f, 0.28f, 0.1f }, 1));
    EXPECT_EQ(chart.replots(), replots + 1);
    EXPECT_EQ(chart.plot()->yAxis->ticker(), ticker);
    EXPECT_EQ(chart.labelChanges(), labels);
    EXPECT_DOUBLE_EQ(chart.plot()->xAxis->range().upper, 0.6);
    EXPECT_EQ(chart.chosenIndex(), 1);
    // Other candidates: the same ticker, its labels replaced.
    chart.setStep(candidatesStep({ "dog", "cat" }, { 0.9f, 0.05f }, 0));
    EXPECT_EQ(chart.plot()->yAxis->ticker(), ticker);
    EXPECT_EQ(chart.labelChanges(), labels + 1);
    const auto text = qSharedPointerDynamicCast<QCPAxisTickerText>(chart.plot()->yAxis->ticker());
    ASSERT_TRUE(text);
    EXPECT_EQ(text->ticks().values(), QList<QString>({ "dog", "cat" }));
    EXPECT_DOUBLE_EQ(chart.plot()->xAxis->range().upper, 1.0);
}

TEST(DecodePanelEmpty, TheHeatmapSaysWhatToDoAndWhyAPromptWasRefused)
{
    DecodePanel panel;
    panel.resize(1200, 760);
    panel.flushRedraw();
    EXPECT_TRUE(panel.heatmap()->titleText().startsWith("No attention yet: open a model that generates text"))
        << panel.heatmap()->titleText().toStdString();
    EXPECT_FALSE(panel.timeline()->cursor()->visible()) << "no step to mark (it was a diagonal across the plot)";
    // The lens table's compact header before its first readout as after it (it said "read after" until then).
    EXPECT_EQ(panel.lensView()->table()->horizontalHeaderItem(0)->text(), "layer");
    QSignalSpy opened(panel.controller(), &DecodeController::opened);
    panel.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
    QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 30000);
    panel.flushRedraw();
    // A model is open: the heatmap asks for a prompt, not for a model (it said "open a model and type an input").
    EXPECT_EQ(panel.heatmap()->titleText(), "No attention yet: type a prompt above and press Enter (or Step)");
    QSignalSpy errors(&panel, &DecodePanel::errorShown);
    panel.setPromptText(overLimitPrompt());
    QTest::mouseClick(panel.findChild<QPushButton*>("promptButton"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(errors.count(), 1, 10000);
    panel.flushRedraw();
    const QString title = panel.heatmap()->titleText();
    EXPECT_TRUE(title.startsWith("No attention: the prompt has ")) << title.toStdString();
    EXPECT_TRUE(title.contains("the model takes at most 512")) << title.toStdString();
    EXPECT_TRUE(title.endsWith("Edit the prompt and press Enter to try again.")) << title.toStdString();
}

} // namespace
} // namespace attn::ui
