// SPDX-License-Identifier: MIT
// The Pruning tab on the demo decoder: its importance and curve equal what `attnscope-cli prune` writes for the same
// input, a click on a head selects it in the main views and its Ablate button removes it on the Intervene tab,
// Cancel stops a run, and the Mechanisms tab's entropy page opens the tab. On the demo ViT it prunes over labelled
// sample images with their true classes as the ground truth; on the demo translator over sentence pairs, with exact
// match of greedy translations. Before a result the curve's place says what it will show.
#include "analysis/head_importance_classes.h"
#include "core/npy.h"
#include "demo_models.h"
#include "intervention/intervention_panel.h"
#include "intervention/intervention_runner.h"
#include "main_window.h"
#include "mechanisms/entropy_page.h"
#include "mechanisms/line_plot.h"
#include "mechanisms/mechanisms_panel.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "plots/heatmap_view.h"
#include "pruning/pruning_panel.h"
#include "support/shared_data.h"
#include "vision/vision_view.h"
#include "window_runs.h"
#include "window_screenshots.h"

#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 120000;
const char* kStory = "Ben went to the park. Ben said the magic words: gold wind frog lamp. Then he said again: gold "
                     "wind frog lamp";
// Both sides run the same engine functions on the same tokens; the GUI may run on another backend than the CLI's
// --backend cpu, so the bound is the fixtures' logits tolerance (1e-4): an importance is a difference of two means
// of log-softmax values, each off by at most about twice the logits' error.
constexpr double kTolerance = 1e-4;

/// `attnscope-cli prune MODEL --corpus CORPUS --out OUT` run on the CPU; its curve.json (null when it failed).
nlohmann::json pruneCommandResult(const std::string& model, const std::string& corpus, const std::string& out)
{
    std::string log;
    const int status = test::runCommand(
        test::cliPath() + " prune " + model + " --corpus " + corpus + " --backend cpu --out " + out, &log);
    EXPECT_EQ(status, 0) << log;
    nlohmann::json curve;
    if (status == 0) std::ifstream(out + "/curve.json") >> curve;
    return curve;
}

/// The tab's importances and curve equal what the prune command wrote to `out` (curve.json read as `curve`).
void expectEqualsTheCommand(const PruningResult& result, const std::string& out, const nlohmann::json& curve)
{
    ASSERT_FALSE(curve.is_null());
    const Tensor expected = readNpy(out + "/importance.npy");
    ASSERT_EQ(result.importance.shape(), expected.shape());
    double worst = 0.0, spread = 0.0;
    for (int64_t i = 0; i < expected.numel(); ++i) {
        worst = std::max(worst, double(std::fabs(result.importance.data()[i] - expected.data()[i])));
        spread = std::max(spread, double(std::fabs(expected.data()[i])));
    }
    EXPECT_LT(worst, kTolerance);
    EXPECT_GT(spread, 100 * kTolerance) << "importances this small would make the comparison empty";
    ASSERT_EQ(curve["loss"].size(), result.curve.loss.size());
    ASSERT_EQ(curve["accuracy"].size(), result.curve.accuracy.size());
    for (size_t k = 0; k < result.curve.loss.size(); ++k) {
        EXPECT_NEAR(result.curve.loss[k], curve["loss"][k].get<double>(), kTolerance) << k;
        EXPECT_NEAR(result.curve.accuracy[k], curve["accuracy"][k].get<double>(), 1e-9) << k;
    }
}

/// At 1024x700 and 1280x800 the importance map's title is whole and every one of its `heads` columns has a label: at
/// 1024 px the map had the tab's half, its title read "ead importance (nat" and only heads 0 and 2 were labelled.
void expectTheMapReadsWhole(MainWindow& window, PruningPanel* pruning, int64_t heads)
{
    for (const QSize size : { QSize(1024, 700), QSize(1280, 800) }) {
        const std::string where = std::to_string(size.width()) + "x" + std::to_string(size.height());
        window.resize(size);
        QTest::qWait(300); // layouts and the map's label spacing (a queued replot after the layout) settle
        HeatmapView* map = pruning->importanceView();
        map->flushRedraw();
        QTest::qWait(100);
        QCustomPlot* plot = map->plot();
        int titles = 0;
        for (QCPLayoutElement* element : plot->plotLayout()->elements(true))
            if (const auto* text = qobject_cast<QCPTextElement*>(element); text && text->visible()) {
                ++titles;
                EXPECT_LE(QFontMetrics(text->font()).horizontalAdvance(text->text()), text->outerRect().width())
                    << where << ": the title '" << text->text().toStdString() << "' is cut";
            }
        EXPECT_EQ(titles, 1) << where;
        EXPECT_EQ(plot->xAxis->tickVector().size(), heads) << where << ": not every head is labelled";
    }
}

TEST(PruningPanel, EqualsThePruneCommandAndAClickedHeadGoesToTheInterveneTab)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, test::demoDecoderPath(), kStory));
    auto* pruning = window.findChild<PruningPanel*>();
    ASSERT_NE(pruning, nullptr);
    window.tabs()->setCurrentWidget(pruning);
    QSignalSpy shown(pruning, &PruningPanel::resultShown);
    pruning->pruneInput();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, kTimeoutMs);
    const PruningResultPtr result = pruning->result();
    ASSERT_NE(result, nullptr) << pruning->status().toStdString();

    QTemporaryDir dir;
    const std::string out = dir.path().toStdString();
    std::ofstream(out + "/corpus.txt") << kStory << "\n";
    const nlohmann::json curve = pruneCommandResult(test::demoDecoderPath().toStdString(), out + "/corpus.txt", out);
    expectEqualsTheCommand(*result, out, curve);
    EXPECT_NEAR(result->unmodifiedLoss, curve["unmodified_loss"].get<double>(), kTolerance);
    // The story repeats "gold wind frog lamp": the copy task's accuracy is the CLI's, step by step.
    ASSERT_GT(result->curve.copyPositions, 0);
    EXPECT_EQ(result->curve.copyPositions, curve["copy_positions"].get<int64_t>());
    ASSERT_EQ(curve["copy_accuracy"].size(), result->curve.copyAccuracy.size());
    for (size_t k = 0; k < result->curve.copyAccuracy.size(); ++k)
        EXPECT_NEAR(result->curve.copyAccuracy[k], curve["copy_accuracy"][k].get<double>(), 1e-9) << k;
    ASSERT_EQ(pruning->curvePlot()->series().size(), 3u);
    EXPECT_EQ(pruning->curvePlot()->series()[0].y, result->curve.loss);
    EXPECT_EQ(pruning->curvePlot()->series()[2].y, result->curve.copyAccuracy);
    test::saveScreenshots(window, "pruning");

    // A click on head (2, 0) of the importance map selects it everywhere; Ablate removes it on the Intervene tab.
    HeatmapView* map = pruning->importanceView();
    map->flushRedraw();
    const QPoint cell = map->plot()->mapFrom(map, map->cellCenter(2, 0));
    QTest::mouseClick(map->plot(), Qt::LeftButton, {}, cell);
    EXPECT_EQ(window.findChild<QSpinBox*>("layerBox")->value(), 2);
    EXPECT_EQ(window.findChild<QSpinBox*>("headBox")->value(), 0);
    ASSERT_TRUE(pruning->ablateButton()->isEnabled());
    pruning->ablateButton()->click();
    EXPECT_EQ(window.tabs()->currentWidget(), window.interventionPanel());
    ASSERT_EQ(window.interventionPanel()->ablations().size(), 1u);
    EXPECT_EQ(window.interventionPanel()->ablations()[0].heads, (std::vector<HeadRef> { { 2, 0 } }));
}

/// The placeholder that stands in for the curve before a result, or a test failure.
QLabel* curvePlaceholder(PruningPanel* pruning)
{
    auto* label = pruning->findChild<QLabel*>("pruningCurvePlaceholder");
    EXPECT_NE(label, nullptr) << "no placeholder for the empty curve";
    return label;
}

TEST(PruningPanel, TheCurveShowsAPlaceholderUntilAResultInsteadOfBareAxes)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, test::demoDecoderPath(), kStory));
    auto* pruning = window.findChild<PruningPanel*>();
    window.tabs()->setCurrentWidget(pruning);
    QLabel* placeholder = curvePlaceholder(pruning);
    ASSERT_NE(placeholder, nullptr);
    EXPECT_TRUE(placeholder->isVisible());
    EXPECT_TRUE(placeholder->text().startsWith("No pruning curve yet")) << placeholder->text().toStdString();
    EXPECT_FALSE(pruning->curvePlot()->isVisible()) << "the empty plot's bare axes are shown";
    test::saveScreenshots(window, "pruning-empty");
    QSignalSpy shown(pruning, &PruningPanel::resultShown);
    pruning->pruneInput();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, kTimeoutMs);
    ASSERT_NE(pruning->result(), nullptr) << pruning->status().toStdString();
    EXPECT_TRUE(pruning->curvePlot()->isVisible());
    EXPECT_FALSE(placeholder->isVisible());
    pruning->setModel(nullptr); // a model that cannot be pruned: the result goes, the placeholder returns
    EXPECT_TRUE(placeholder->isVisible());
    EXPECT_FALSE(pruning->curvePlot()->isVisible());
}

TEST(PruningPanel, PrunesTheTranslatorOverSentencePairsWithExactMatchAsThePruneCommandDoes)
{
    const QString marian = QStringLiteral(AS_SOURCE_DIR "/resources/models/demo-translate-marian");
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, marian));
    auto* pruning = window.findChild<PruningPanel*>();
    window.tabs()->setCurrentWidget(pruning);
    auto* pairsButton = pruning->findChild<QPushButton*>("pruneCorpus");
    QTRY_VERIFY_WITH_TIMEOUT(pairsButton->isEnabled(), kTimeoutMs);
    EXPECT_EQ(pairsButton->text(), QString::fromUtf8("Prune sentence pairs…"));
    EXPECT_FALSE(pruning->findChild<QPushButton*>("pruneInput")->isVisible()) << "a translator needs references";
    QLabel* placeholder = curvePlaceholder(pruning);
    ASSERT_NE(placeholder, nullptr);
    EXPECT_TRUE(placeholder->isVisible());
    EXPECT_TRUE(placeholder->text().contains("exact greedy translations")) << placeholder->text().toStdString();

    // The first 12 held-out pairs, source and reference separated by a tab.
    QTemporaryDir dir;
    const std::string out = dir.path().toStdString();
    {
        std::ifstream en(marian.toStdString() + "/heldout.en"), fr(marian.toStdString() + "/heldout.fr");
        std::ofstream pairs(out + "/pairs.tsv");
        std::string source, reference;
        for (int i = 0; i < 12 && std::getline(en, source) && std::getline(fr, reference); ++i)
            pairs << source << "\t" << reference << "\n";
    }
    QSignalSpy shown(pruning, &PruningPanel::resultShown);
    pruning->pruneCorpus(QString::fromStdString(out + "/pairs.tsv"));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, kTimeoutMs);
    const PruningResultPtr result = pruning->result();
    ASSERT_NE(result, nullptr) << pruning->status().toStdString();
    EXPECT_EQ(result->target, PruningTarget::Translations);
    EXPECT_EQ(result->inputs, 12);
    ASSERT_EQ(result->importance.shape(), (Shape { 6, 4 })) << "2 encoder, 2 decoder and 2 cross-attention layers";

    const nlohmann::json curve = pruneCommandResult(marian.toStdString(), out + "/pairs.tsv", out);
    expectEqualsTheCommand(*result, out, curve);
    EXPECT_EQ(result->curve.accuracy.front(), 1.0) << "every held-out pair is translated exactly";
    ASSERT_EQ(pruning->curvePlot()->series().size(), 2u);
    EXPECT_EQ(pruning->curvePlot()->series()[1].y, result->curve.accuracy);
    EXPECT_TRUE(pruning->curvePlot()->series()[1].name.startsWith("exact match"));
    EXPECT_TRUE(pruning->curvePlot()->isVisible());
    EXPECT_FALSE(placeholder->isVisible());
    const QString status = pruning->status();
    EXPECT_TRUE(status.contains("12 sentence pairs") && status.contains("exact match")) << status.toStdString();
    EXPECT_TRUE(status.contains(" L")) << "heads are named by their attention kind: " << status.toStdString();
    expectTheMapReadsWhole(window, pruning, 4);
    test::saveScreenshots(window, "pruning-translator");

    // A click selects a head without moving the main views: a row here is not one of their layers.
    QSignalSpy selected(pruning, &PruningPanel::headSelected);
    pruning->selectHead(5, 2);
    EXPECT_EQ(selected.count(), 0);
    EXPECT_TRUE(pruning->findChild<QLabel*>("pruningSelected")->text().contains("cross L1.H2"));
}

TEST(PruningPanel, TheRnnTranslatorSaysItHasNoHeadsToRemove)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(
        test::openAndRun(window, QStringLiteral(AS_SOURCE_DIR "/resources/models/demo-translate-gru")));
    auto* pruning = window.findChild<PruningPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(pruning->status().contains("no heads to remove"), kTimeoutMs);
    EXPECT_FALSE(pruning->findChild<QPushButton*>("pruneCorpus")->isEnabled());
}

TEST(PruningPanel, CancelStopsARun)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, test::demoDecoderPath(), kStory));
    auto* pruning = window.findChild<PruningPanel*>();
    ASSERT_NE(pruning, nullptr);
    window.tabs()->setCurrentWidget(pruning);
    QTemporaryDir dir;
    const QString corpus = dir.filePath("corpus.txt");
    {
        std::ofstream lines(corpus.toStdString());
        for (int i = 0; i < 200; ++i) // thousands of passes: far longer than the cancel takes to arrive
            lines << kStory << "\n";
    }
    QSignalSpy cancelled(pruning->runner(), &InterventionRunner::cancelled);
    QSignalSpy shown(pruning, &PruningPanel::resultShown);
    pruning->pruneCorpus(corpus);
    QTRY_VERIFY_WITH_TIMEOUT(pruning->runner()->busy(), kTimeoutMs);
    QTest::qWait(200);
    pruning->findChild<QPushButton*>("cancelPruning")->click();
    QTRY_VERIFY_WITH_TIMEOUT(cancelled.count() == 1, kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!pruning->runner()->busy(), kTimeoutMs);
    EXPECT_EQ(pruning->result(), nullptr);
    EXPECT_EQ(shown.count(), 0);
    EXPECT_EQ(pruning->status(), "Cancelled.");
}

TEST(PruningPanel, TheEntropyPageOpensIt)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(test::openAndRun(window, test::demoDecoderPath(), kStory));
    window.tabs()->setCurrentWidget(window.mechanismsPanel());
    QPushButton* link = window.mechanismsPanel()->entropyPage()->pruningButton();
    ASSERT_TRUE(link->isEnabled());
    link->click();
    EXPECT_EQ(window.tabs()->currentWidget(), window.findChild<PruningPanel*>());
}

TEST(PruningPanel, PrunesTheVitOverLabelledImagesAgainstTheirTrueClasses)
{
    DemoModel vit;
    for (const DemoModel& d : bundledDemoModels())
        if (d.path.endsWith("/demo-vit-shapes")) vit = d;
    ASSERT_FALSE(vit.path.isEmpty()) << "the bundled ViT demo is missing";
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.openDemo(vit);
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<VisionView*>()->result() != nullptr, kTimeoutMs);
    auto* pruning = window.findChild<PruningPanel*>();
    ASSERT_NE(pruning, nullptr);
    ASSERT_TRUE(window.tabs()->isTabEnabled(window.tabs()->indexOf(pruning))) << "open in image mode too";
    window.tabs()->setCurrentWidget(pruning);
    // An image classifier has no text input: the Input dock goes away on this tab as on the Vision tab.
    EXPECT_TRUE(window.findChild<QDockWidget*>("inputDock")->isHidden());
    auto* pruneImage = pruning->findChild<QPushButton*>("pruneInput");
    QTRY_VERIFY_WITH_TIMEOUT(pruneImage->isEnabled(), kTimeoutMs); // the Vision tab's sample image

    // The main image alone: its file name (sample_0_circle.png) gives its class.
    QSignalSpy shown(pruning, &PruningPanel::resultShown);
    pruneImage->click();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 1, kTimeoutMs);
    ASSERT_NE(pruning->result(), nullptr) << pruning->status().toStdString();
    EXPECT_EQ(pruning->result()->inputs, 1);

    // Every bundled sample: reference.json holds the same pictures' bytes and their true classes.
    const QDir samples(vit.path + "/samples");
    QStringList paths;
    for (const QString& name : samples.entryList({ "sample_*.png" }, QDir::Files, QDir::Name))
        if (!name.contains("_mask")) paths << samples.filePath(name);
    ASSERT_EQ(paths.size(), 8);
    pruning->pruneImages(paths);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 2, kTimeoutMs);
    const PruningResultPtr result = pruning->result();
    ASSERT_NE(result, nullptr) << pruning->status().toStdString();
    EXPECT_EQ(result->target, PruningTarget::Classes);
    EXPECT_EQ(result->inputs, 8);

    const auto model = std::dynamic_pointer_cast<const VisionModel>(
        std::shared_ptr<const Model>(loadModel(probeModel(vit.path.toStdString()))));
    ASSERT_NE(model, nullptr);
    nlohmann::json reference;
    std::ifstream(vit.path.toStdString() + "/reference.json") >> reference;
    std::vector<LabelledImage> images;
    double agree = 0.0;
    for (const auto& c : reference.at("cases")) {
        ImageBuffer image;
        image.width = image.height = model->config().imageSize;
        image.channels = 3;
        image.pixels = c.at("rgb").get<std::vector<uint8_t>>();
        images.push_back({ model->preprocess(image), c.at("label").get<int64_t>() });
        agree += c.at("predicted") == c.at("label") ? 1.0 : 0.0;
    }
    ASSERT_EQ(images.size(), 8u);
    // Ground truth: the share of samples PyTorch classified as their true class, which the tab must reproduce.
    EXPECT_DOUBLE_EQ(result->curve.accuracy.front(), agree / 8.0);
    const Tensor importance = classHeadImportance(*model, images, {});
    ASSERT_EQ(result->importance.shape(), importance.shape());
    for (int64_t i = 0; i < importance.numel(); ++i)
        EXPECT_NEAR(result->importance.data()[i], importance.data()[i], kTolerance) << i;
    const PruningCurve curve = classPruning(*model, images, importance, {});
    ASSERT_EQ(result->curve.accuracy.size(), curve.accuracy.size());
    for (size_t k = 0; k < curve.accuracy.size(); ++k)
        EXPECT_DOUBLE_EQ(result->curve.accuracy[k], curve.accuracy[k]) << k << " heads removed";
    ASSERT_EQ(pruning->curvePlot()->series().size(), 2u) << "no copy task for images";
    EXPECT_EQ(pruning->curvePlot()->series()[1].y, result->curve.accuracy);
    EXPECT_TRUE(pruning->status().contains("classification accuracy")) << pruning->status().toStdString();
    EXPECT_FALSE(pruning->ablateButton()->isVisibleTo(pruning)) << "the Intervene tab takes text models only";
    test::saveScreenshots(window, "pruning-vit");

    // An image whose name names no class has no ground truth: an error that names the file.
    QTemporaryDir dir;
    const QString unnamed = dir.filePath("picture.png");
    ASSERT_TRUE(QFile::copy(paths.front(), unnamed));
    pruning->pruneImages({ unnamed });
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() == 3, kTimeoutMs);
    EXPECT_TRUE(pruning->status().startsWith("Error")) << pruning->status().toStdString();
    EXPECT_TRUE(pruning->status().contains("picture.png")) << pruning->status().toStdString();
    EXPECT_EQ(pruning->result(), result) << "the last result stays";
}

} // namespace
} // namespace attn::ui
