// SPDX-License-Identifier: MIT
// The Mechanisms tab on the models that run in no session, opened as a user opens them (the bundled demos): the GRU
// demo's cross-attention with its learned Bahdanau score on the main input, and the ViT demo's heads on the image the
// Vision tab classified. What the pages show equals what `attnscope-cli mechanisms` writes for the same model, input,
// head and variant, and the tab reads the copy of the model the other tabs opened (no second load).
#include "controller/engine_controller.h"
#include "core/npy.h"
#include "demo_models.h"
#include "main_window.h"
#include "mechanisms/compare_page.h"
#include "mechanisms/entropy_page.h"
#include "mechanisms/flash_page.h"
#include "mechanisms/line_plot.h"
#include "mechanisms/mechanisms_panel.h"
#include "mechanisms/positions_page.h"
#include "mechanisms/scale_page.h"
#include "mechanisms_test_support.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "model/model_summary.h"
#include "plots/heatmap_view.h"
#include "service/model_registry.h"
#include "support/shared_data.h"
#include "vision/vision_view.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace attn::ui {
namespace {

using test::computeAndWait;
using test::expectViewNear;

/// ATTN_MECHANISMS_SCREENSHOTS=DIR: every page of the tab in the window at 1280x800 and 1024x700.
void saveScreenshots(MainWindow& window, MechanismsPanel& panel, const QString& prefix)
{
    const QString dir = qEnvironmentVariable("ATTN_MECHANISMS_SCREENSHOTS");
    if (dir.isEmpty()) return;
    for (const QSize size : { QSize(1280, 800), QSize(1024, 700) })
        test::grabPages(window, panel, dir, size, prefix);
}

constexpr int kTimeoutMs = test::kMechanismsTimeoutMs;
// The tab and the CLI run the same double-precision mechanism code on q, k, v from the same float32 forward; what may
// differ is that forward's summation order (BLAS threading in two processes) and the float32 rounding of the .npy
// files (6e-8 relative). 1e-6 on probabilities and metrics leaves room for both and catches any other input or head.
constexpr double kTolerance = 1e-6;

DemoModel demo(const QString& folder)
{
    for (const DemoModel& d : bundledDemoModels())
        if (d.path.endsWith("/" + folder)) return d;
    ADD_FAILURE() << "no bundled demo " << folder.toStdString();
    return {};
}

struct CliRun {
    std::string dir;
    QJsonObject metrics;
    Tensor npy(const std::string& name) const { return readNpy(dir + "/" + name + ".npy"); }
};

/// attnscope-cli mechanisms ARGS --out DIR; fails the test when it does not succeed.
CliRun runCli(const std::string& args)
{
    CliRun run { test::makeTempDir("mechanisms-cli"), {} };
    std::string output;
    const int rc = test::runCommand(test::cliPath() + " mechanisms " + args + " --out '" + run.dir + "' 2>&1", &output);
    EXPECT_EQ(rc, 0) << output;
    QFile file(QString::fromStdString(run.dir + "/metrics.json"));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << output;
    run.metrics = QJsonDocument::fromJson(file.readAll()).object();
    return run;
}

void expectMetricsMatch(const MechanismsResult& r, const QJsonObject& cli)
{
    const MechanismMetrics& m = r.report.metrics;
    for (const auto& [name, value] : { std::pair { "mass_kept", m.massKept }, { "out_rel_err", m.outRelErr },
             { "entropy_mean", m.entropyMean }, { "exact_entropy_mean", m.exactEntropyMean } })
        EXPECT_NEAR(value, cli[name].toDouble(), kTolerance) << name;
}

/// The tab's query projection of the head equals the CLI's q.npy within 1e-5.
void expectQueriesMatch(const MechanismsResult& r, const Tensor& q)
{
    ASSERT_EQ(q.shape(), (Shape { r.inputs.q.rows(), r.inputs.q.cols() }));
    double error = 0;
    for (int64_t i = 0; i < q.dim(0); ++i)
        for (int64_t j = 0; j < q.dim(1); ++j)
            error = std::max(error, std::abs(r.inputs.q(i, j) - q.at({ i, j })));
    EXPECT_LE(error, 1e-5);
}

std::vector<std::string> rowLabels(HeatmapView& view)
{
    std::vector<std::string> out;
    for (const TokenChip& chip : view.snapshot()->queryTokens())
        out.push_back(chip.text);
    return out;
}

/// Opens `d` in `window` (at 1280x800) and waits for its first run (or an error, in window.lastError()); returns the
/// Mechanisms tab, shown, on model heads.
MechanismsPanel& openDemoHeads(MainWindow& window, const DemoModel& d)
{
    window.resize(1280, 800);
    window.show();
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openDemo(d);
    EXPECT_TRUE(QTest::qWaitFor([&] { return shown.count() >= 1 || !window.lastError().isEmpty(); }, kTimeoutMs));
    MechanismsPanel& panel = *window.mechanismsPanel();
    window.tabs()->setCurrentWidget(&panel);
    panel.setSynthetic(false);
    return panel;
}

TEST(MechanismsModels, GruDemoHeadEqualsTheCli)
{
    const DemoModel gru = demo("demo-translate-gru");
    const uint64_t loadsBefore = modelLoads();
    MainWindow window;
    MechanismsPanel& panel = openDemoHeads(window, gru);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    const MechanismsPtr r = computeAndWait(panel, "additive");
    ASSERT_TRUE(r) << panel.status().toStdString();
    EXPECT_EQ(r->inputs.learned.kind, LearnedScoreKind::Additive); // the demo's trained Bahdanau score

    const CliRun cli = runCli("'" + gru.path.toStdString() + "' --prompt '" + gru.sampleInput.toStdString()
        + "' --layer 0 --head 0 --variant additive");
    ComparePage& compare = *panel.comparePage();
    expectViewNear(*compare.exactView(), cli.npy("exact"), kTolerance);
    expectViewNear(*compare.variantView(), cli.npy("probs"), kTolerance);
    expectMetricsMatch(*r, cli.metrics);
    // The learned parameters as they are: the variant is the model's own attention.
    EXPECT_NEAR(r->report.metrics.outRelErr, 0.0, 1e-12);
    EXPECT_TRUE(compare.notes()->text().contains("learned")) << compare.notes()->text().toStdString();
    // Rows are the greedy translation's words, columns the source's.
    const QJsonArray generated = cli.metrics["input"].toObject()["generated"].toArray();
    EXPECT_EQ(rowLabels(*compare.exactView()).size(), static_cast<size_t>(generated.size()));
    EXPECT_EQ(compare.exactView()->snapshot()->tokens().size(),
        static_cast<size_t>(cli.metrics["input"].toObject()["tokens"].toArray().size()));

    // A second scoring function on the same head: Luong general, fitted to the learned scores.
    const MechanismsPtr general = computeAndWait(panel, "general");
    ASSERT_TRUE(general);
    const CliRun cliGeneral = runCli("'" + gru.path.toStdString() + "' --prompt '" + gru.sampleInput.toStdString()
        + "' --layer 0 --head 0 --variant general");
    expectViewNear(*compare.variantView(), cliGeneral.npy("probs"), kTolerance);
    expectMetricsMatch(*general, cliGeneral.metrics);

    // The temperature plot at τ = 1 is the head as the model runs it; FlashAttention says why it does not apply.
    const PlotSeries& temperature = panel.scalePage()->temperaturePlot()->series().at(0);
    const auto one = std::find(temperature.x.begin(), temperature.x.end(), 1.0);
    ASSERT_NE(one, temperature.x.end());
    EXPECT_NEAR(temperature.y[static_cast<size_t>(one - temperature.x.begin())],
        cli.metrics["exact_entropy_mean"].toDouble(), kTolerance);
    EXPECT_TRUE(panel.flashPage()->summary()->text().contains("self-attention head"));
    panel.entropyPage()->map()->flushRedraw();
    EXPECT_EQ(panel.entropyPage()->map()->matrix().rows, 1);
    EXPECT_EQ(modelLoads() - loadsBefore, 1u) << "the tab reads the model the other tabs opened";
    saveScreenshots(window, panel, "mechanisms-gru");
}

TEST(MechanismsModels, TutorialToyLocationHeadEqualsTheCli)
{
    // The PyTorch tutorial's location attention: softmax(W q + b) over fixed positions, the keys past the source
    // padding it attends all the same.
    const std::string toy = test::sharedPath("models/seq2seq-attn-de-en-toy");
    QFile file(QString::fromStdString(toy + "/reference_translations_with_attention.json"));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const std::string source
        = QJsonDocument::fromJson(file.readAll()).array().first().toObject()["src"].toString().toStdString();
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openModel(QString::fromStdString(toy));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr || !window.lastError().isEmpty(), kTimeoutMs);
    window.setInputText(QString::fromStdString(source));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1 || !window.lastError().isEmpty(), kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    MechanismsPanel& panel = *window.mechanismsPanel();
    window.tabs()->setCurrentWidget(&panel);
    panel.setSynthetic(false);
    const MechanismsPtr r = computeAndWait(panel, "exact");
    ASSERT_TRUE(r) << panel.status().toStdString();
    EXPECT_EQ(r->inputs.learned.kind, LearnedScoreKind::Location);
    const CliRun cli = runCli("'" + toy + "' --prompt '" + source + "' --layer 0 --head 0 --variant exact");
    expectViewNear(*panel.comparePage()->exactView(), cli.npy("exact"), kTolerance);
    expectMetricsMatch(*r, cli.metrics);
    const std::vector<TokenChip>& keys = panel.comparePage()->exactView()->snapshot()->tokens();
    ASSERT_GT(keys.size(), r->tokenIds.size()); // padded positions past the source
    EXPECT_EQ(keys.back().text, "pad " + std::to_string(keys.size() - 1));
}

TEST(MechanismsModels, VitDemoHeadEqualsTheCli)
{
    const DemoModel vit = demo("demo-vit-shapes");
    const uint64_t loadsBefore = modelLoads();
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.openDemo(vit);
    QTRY_VERIFY_WITH_TIMEOUT(window.findChild<VisionView*>()->result() != nullptr, kTimeoutMs);
    MechanismsPanel& panel = *window.mechanismsPanel();
    ASSERT_TRUE(window.tabs()->isTabEnabled(window.tabs()->indexOf(&panel)));
    window.tabs()->setCurrentWidget(&panel);
    panel.setSynthetic(false);
    panel.setHead(2, 1);
    // Swin's shifted windows need the patch grid, which only an image head has.
    const MechanismsPtr r = computeAndWait(panel, "swin:2:1");
    ASSERT_TRUE(r) << panel.status().toStdString();
    EXPECT_EQ(r->inputs.layer, 2);
    EXPECT_EQ(r->inputs.head, 1);
    EXPECT_EQ(r->inputs.gridRows, 8);

    const CliRun cli = runCli("'" + vit.path.toStdString() + "' --image '" + vit.sampleImage.toStdString()
        + "' --layer 2 --head 1 --variant swin:2:1");
    ComparePage& compare = *panel.comparePage();
    expectViewNear(*compare.exactView(), cli.npy("exact"), kTolerance);
    expectViewNear(*compare.variantView(), cli.npy("probs"), kTolerance);
    expectMetricsMatch(*r, cli.metrics);
    EXPECT_LT(r->report.metrics.massKept, 1.0); // the windows drop some of the head's mass
    const Tensor mask = cli.npy("mask");
    const Mat* tabMask = nullptr;
    for (const NamedArray& a : r->report.variant.arrays)
        if (a.name == "mask") tabMask = &a.values;
    ASSERT_NE(tabMask, nullptr);
    for (int64_t i = 0; i < mask.dim(0); ++i)
        for (int64_t j = 0; j < mask.dim(1); ++j)
            ASSERT_EQ((*tabMask)(i, j), mask.at({ i, j })) << i << "," << j;
    EXPECT_EQ(rowLabels(*compare.exactView()).front(), "[CLS]");
    // ViT's learned position table (65 rows at the 32 px training size): the CLI's cosine similarity.
    ASSERT_EQ(r->positions->learned.rows(), 65);
    const Tensor positions = cli.npy("learned_positions");
    ASSERT_EQ(positions.dim(0), 65);
    for (int64_t i = 0; i < 65; ++i)
        for (int64_t j = 0; j < 65; ++j)
            ASSERT_NEAR(r->positions->learned(i, j), positions.at({ i, j }), kTolerance) << i << "," << j;

    // Every page works on the image head: FlashAttention equals the CLI's exact output, every head has an entropy.
    const Tensor exactOut = cli.npy("exact_out");
    double flashError = 0;
    for (int64_t i = 0; i < exactOut.dim(0); ++i)
        for (int64_t j = 0; j < exactOut.dim(1); ++j)
            flashError = std::max(flashError, std::abs(r->flash.out(i, j) - exactOut.at({ i, j })));
    EXPECT_LT(flashError, kTolerance);
    panel.entropyPage()->map()->flushRedraw();
    EXPECT_EQ(panel.entropyPage()->map()->matrix().rows, 3);
    EXPECT_EQ(panel.entropyPage()->map()->matrix().cols, 4);
    EXPECT_FALSE(r->linformerSweep.points.empty());
    EXPECT_EQ(modelLoads() - loadsBefore, 1u) << "the tab reads the model the Vision tab opened";
    saveScreenshots(window, panel, "mechanisms-vit");
}

// The MarianMT-layout demo: its encoder, decoder and cross-attention heads on the main input and its teacher-forced
// target, equal to the CLI's for the same ids (--block), rows and columns labelled by the side they come from.
TEST(MechanismsModels, MarianDemoBlocksEqualTheCli)
{
    const DemoModel marian = demo("demo-translate-marian");
    const uint64_t loadsBefore = modelLoads();
    MainWindow window;
    MechanismsPanel& panel = openDemoHeads(window, marian);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    panel.setBlock(AttentionBlock::Cross);
    panel.setHead(1, 2);
    const MechanismsPtr cross = computeAndWait(panel, "general");
    ASSERT_TRUE(cross) << panel.status().toStdString();
    ASSERT_TRUE(cross->inputs.cross);
    const MechanismsRequest& request = cross->request;
    ASSERT_FALSE(request.targetIds.empty());
    auto ids = [](const std::vector<int64_t>& v) {
        std::string out;
        for (const int64_t id : v)
            out += (out.empty() ? "" : ",") + std::to_string(id);
        return out;
    };
    const std::string args = "'" + marian.path.toStdString() + "' --tokens " + ids(request.sourceIds)
        + " --decoder-tokens " + ids(request.targetIds);
    const CliRun cli = runCli(args + " --block cross --layer 1 --head 2 --variant general");
    ComparePage& compare = *panel.comparePage();
    expectViewNear(*compare.exactView(), cli.npy("exact"), kTolerance);
    expectViewNear(*compare.variantView(), cli.npy("probs"), kTolerance);
    expectMetricsMatch(*cross, cli.metrics);
    // Rows are the decoder's inputs, columns the source's tokens.
    EXPECT_EQ(rowLabels(*compare.exactView()).size(), request.targetIds.size());
    EXPECT_EQ(compare.exactView()->snapshot()->tokens().size(), request.sourceIds.size());
    EXPECT_TRUE(panel.flashPage()->summary()->text().contains("self-attention head"));
    saveScreenshots(window, panel, "mechanisms-marian-cross");

    panel.setBlock(AttentionBlock::Decoder);
    panel.setHead(0, 1);
    const MechanismsPtr decoder = computeAndWait(panel, "window:2");
    ASSERT_TRUE(decoder) << panel.status().toStdString();
    EXPECT_TRUE(decoder->inputs.causal);
    const CliRun cliDecoder = runCli(args + " --block decoder --layer 0 --head 1 --variant window:2");
    expectViewNear(*compare.exactView(), cliDecoder.npy("exact"), kTolerance);
    expectViewNear(*compare.variantView(), cliDecoder.npy("probs"), kTolerance);
    expectMetricsMatch(*decoder, cliDecoder.metrics);
    EXPECT_FALSE(decoder->linformerSweep.points.empty());
    saveScreenshots(window, panel, "mechanisms-marian-decoder");

    panel.setBlock(AttentionBlock::Encoder);
    const MechanismsPtr encoder = computeAndWait(panel, "flash:3:2");
    ASSERT_TRUE(encoder) << panel.status().toStdString();
    EXPECT_FALSE(encoder->inputs.causal);
    const CliRun cliEncoder = runCli(args + " --block encoder --layer 0 --head 1 --variant flash:3:2");
    expectViewNear(*compare.exactView(), cliEncoder.npy("exact"), kTolerance);
    EXPECT_EQ(rowLabels(*compare.exactView()).size(), request.sourceIds.size());
    EXPECT_EQ(modelLoads() - loadsBefore, 1u) << "the tab reads the model the other tabs opened";
}

// The Positions page's learned slot for the encoder-decoders the tab reads through the registry: BART's learned
// positions (offset 2) and T5's learned relative bias per bucket and head, equal to what the CLI writes (which
// test_mechanisms_seq2seq.cpp holds to the checkpoint read by NumPy). ATTN_MECHANISMS_SCREENSHOTS=DIR saves the page.
TEST(MechanismsModels, PositionsPageShowsBartAndT5LearnedPositions)
{
    struct Case {
        const char* fixture;
        std::vector<int64_t> source, target;
        AttentionBlock block;
        const char* blockName;
        const char* npy;
    };
    const Case cases[] = {
        { "bart", { 0, 125, 23, 56, 125, 116, 49, 22, 119, 2 }, { 2, 0, 13, 23, 101, 34 }, AttentionBlock::Decoder,
            "decoder", "learned_positions" },
        { "t5", { 116, 52, 14, 40, 103, 87, 52, 21, 44, 1 }, { 0, 101, 53, 13, 34, 48 }, AttentionBlock::Encoder,
            "encoder", "relative_bias" },
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.fixture);
        const std::string path = test::sharedPath(std::string("fixtures/hf-tiny/") + c.fixture);
        ModelRegistry models;
        const auto held = models.model(probeModel(path)); // the tab reads the open model's copy
        MechanismsRequest request;
        request.source = HeadSource::Seq2Seq;
        request.modelPath = path;
        request.sourceIds = c.source;
        request.targetIds = c.target;
        request.block = c.block;
        request.layer = 1;
        request.head = 2;
        request.variant = "exact";
        const MechanismsPtr r = computeMechanisms(request, models, [] { return true; });
        ASSERT_TRUE(r);
        PositionsPage page;
        page.showResult(*r);
        auto ids = [](const std::vector<int64_t>& v) {
            std::string out;
            for (const int64_t id : v)
                out += (out.empty() ? "" : ",") + std::to_string(id);
            return out;
        };
        const CliRun cli = runCli(path + " --tokens " + ids(c.source) + " --decoder-tokens " + ids(c.target)
            + " --block " + c.blockName + " --layer 1 --head 2 --variant exact");
        ASSERT_TRUE(page.tables()->isTabVisible(page.tables()->indexOf(page.learnedView())));
        expectViewNear(*page.learnedView(), cli.npy(c.npy), kTolerance);
        page.tables()->setCurrentWidget(page.learnedView()); // for the screenshots
        const QString dir = qEnvironmentVariable("ATTN_MECHANISMS_SCREENSHOTS");
        for (const QSize size : { QSize(1280, 800), QSize(1024, 700) })
            if (!dir.isEmpty()) {
                page.resize(size);
                page.show();
                QTest::qWait(50);
                page.grab().save(
                    QStringLiteral("%1/mechanisms-positions-%2-%3.png").arg(dir, c.fixture).arg(size.width()));
            }
    }
}

/// "1,2,3" for attnscope-cli's --decoder-tokens.
std::string idList(const std::vector<int64_t>& ids)
{
    std::string out;
    for (const int64_t id : ids)
        out += (out.empty() ? "" : ",") + std::to_string(id);
    return out;
}

// Whisper and the captioner read their real input in the tab: the log-mel features .npy and the image of "Input
// file…", as attnscope-cli mechanisms --features / --image read them. The tab's q and its exact attention (and, for
// the captioner's cross head, a variant) equal the CLI's for the same file, block, layer and head at 1e-5 (the same
// float64 mechanism code on the same float32 forward in two processes; see kTolerance), the decoder side on the
// transcript or caption the model generates (no decoder text typed).
TEST(MechanismsModels, WhisperAndCaptionerHeadsReadTheirInputFile)
{
    const std::string whisper = test::sharedPath("fixtures/hf-tiny/whisper");
    const std::string vision = test::sharedPath("fixtures/hf-tiny/vision-encoder-decoder");
    struct Case {
        std::string model, file, cliInput;
        AttentionBlock block;
        const char* blockName;
        int layer, head;
        QString variant;
    };
    const std::string features = whisper + "/golden/item0/input_features.npy", image = vision + "/input0.png";
    const Case cases[] = {
        { whisper, features, "--features " + features, AttentionBlock::Encoder, "encoder", 1, 2, "window:3" },
        { whisper, features, "--features " + features, AttentionBlock::Cross, "cross", 0, 1, "exact" },
        { vision, image, "--image " + image, AttentionBlock::Encoder, "encoder", 1, 2, "strided:3" },
        { vision, image, "--image " + image, AttentionBlock::Cross, "cross", 1, 0, "general" },
    };
    EngineController controller;
    MechanismsPanel panel(&controller);
    for (const Case& c : cases) {
        SCOPED_TRACE(c.model + " " + c.blockName);
        panel.setModel(std::make_shared<const ModelSummary>(summarizeModel(probeModel(c.model), "cpu")));
        panel.setSynthetic(false);
        QSignalSpy failed(&panel, &MechanismsPanel::failed);
        panel.setVariant("exact");
        panel.compute();
        ASSERT_TRUE(failed.wait(kTimeoutMs)) << "no input file chosen yet";
        EXPECT_TRUE(failed.takeFirst().at(0).toString().contains("Input file"));
        panel.setInputFile(QString::fromStdString(c.file));
        panel.setBlock(c.block);
        panel.setHead(c.layer, c.head);
        const MechanismsPtr r = computeAndWait(panel, c.variant);
        ASSERT_TRUE(r) << panel.status().toStdString();
        EXPECT_EQ(r->inputs.cross, c.block == AttentionBlock::Cross);
        // The decoder side runs on the transcript or caption the model generated (no decoder text given).
        const std::string decoder
            = c.block == AttentionBlock::Encoder ? std::string() : " --decoder-tokens " + idList(r->tokenIds);
        const CliRun cli = runCli(c.model + " " + c.cliInput + " --block " + c.blockName + decoder + " --layer "
            + std::to_string(c.layer) + " --head " + std::to_string(c.head) + " --variant " + c.variant.toStdString());
        expectQueriesMatch(*r, cli.npy("q"));
        expectViewNear(*panel.comparePage()->exactView(), cli.npy("exact"), 1e-5);
        expectViewNear(*panel.comparePage()->variantView(), cli.npy("probs"), 1e-5);
        expectMetricsMatch(*r, cli.metrics);
        const QString dir = qEnvironmentVariable("ATTN_MECHANISMS_SCREENSHOTS");
        if (!dir.isEmpty() && c.block == AttentionBlock::Cross) {
            panel.show();
            for (const QSize size : { QSize(1280, 800), QSize(1024, 700) })
                test::grabPages(panel, panel, dir, size,
                    c.model == vision ? "mechanisms-captioner-cross" : "mechanisms-whisper-cross");
        }
    }
}

// The captioner opened in the window is one copy: the Caption tab takes it from the engine's registry, and the
// Mechanisms tab's heads read that copy (the Caption tab loaded its own before, and the tab a second). Its decoder
// heads run on real text: the decoder text typed in the tab (the start token, then its tokens), or with none the
// caption the model generates; each equals the CLI's heads on the same decoder tokens at 1e-5.
TEST(MechanismsModels, TheCaptionerIsLoadedOnceAndItsDecoderHeadsReadRealText)
{
    const std::string vision = test::sharedPath("fixtures/hf-tiny/vision-encoder-decoder");
    const std::string image = vision + "/input0.png";
    const uint64_t loadsBefore = modelLoads();
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.openModel(QString::fromStdString(vision));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr, kTimeoutMs);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
    EXPECT_EQ(modelLoads() - loadsBefore, 1u) << "the Caption tab's copy is the registry's";
    MechanismsPanel& panel = *window.mechanismsPanel();
    window.tabs()->setCurrentWidget(&panel);
    panel.setSynthetic(false);
    panel.setInputFile(QString::fromStdString(image));
    struct Case {
        QString text;
        AttentionBlock block;
        const char* blockName;
    };
    for (const Case& c :
        { Case { "a small red cat", AttentionBlock::Decoder, "decoder" },
            Case { "a small red cat", AttentionBlock::Cross, "cross" }, Case { "", AttentionBlock::Cross, "cross" } }) {
        SCOPED_TRACE(c.text.toStdString() + " " + c.blockName);
        panel.setDecoderText(c.text);
        panel.setBlock(c.block);
        panel.setHead(1, 0);
        const MechanismsPtr r = computeAndWait(panel, "exact");
        ASSERT_TRUE(r) << panel.status().toStdString();
        ASSERT_GT(r->tokenIds.size(), 1u) << "the decoder ran on more than its start token";
        EXPECT_EQ(r->inputs.tokens(), static_cast<int64_t>(r->tokenIds.size()));
        EXPECT_EQ(r->queryLabels.size(), r->tokenIds.size()); // the rows are the decoder's tokens
        std::string rows;
        for (const std::string& label : r->queryLabels)
            rows += label;
        if (!c.text.isEmpty()) {
            EXPECT_NE(rows.find("red cat"), std::string::npos) << rows;
        }
        const CliRun cli = runCli(vision + " --image " + image + " --block " + c.blockName + " --decoder-tokens "
            + idList(r->tokenIds) + " --layer 1 --head 0 --variant exact");
        expectQueriesMatch(*r, cli.npy("q"));
        expectViewNear(*panel.comparePage()->exactView(), cli.npy("exact"), 1e-5);
    }
    EXPECT_EQ(modelLoads() - loadsBefore, 1u) << "the Mechanisms tab read the Caption tab's copy";
}

// T5's bucketing is the model's config, not T5's defaults: a copy of the tiny T5 with 16 buckets and max distance 20
// (each stack's bias cut to 16 rows; tests/mechanisms/t5_bucket_copy.py) gives the Positions page's bucket maps of HF's
// _relative_position_bucket transcribed in NumPy (encoder bidirectional, decoder one-sided), the head's bias is the
// learned table at those buckets, and its exact attention is the model's own from `attention` on the copy (1e-5, the
// derived-attention bound: float64 softmax of the float32 scores). The defaults (32, 128) give other buckets for
// every key after the query (+1 is bucket 17 there, 9 here), so the old fixed values fail the first check.
TEST(MechanismsModels, T5BucketsFollowTheModelConfig)
{
    const std::string copy = test::makeTempDir("t5-buckets");
    std::vector<int64_t> source, target;
    for (int64_t i = 0; i < 29; ++i)
        source.push_back(2 + (i * 37) % 120);
    source.push_back(1); // EOS
    for (int64_t i = 0; i < 24; ++i)
        target.push_back(i == 0 ? 0 : 3 + (i * 53) % 120);
    std::string output;
    ASSERT_EQ(test::runCommand(test::pythonPath() + " " + std::string(AS_SOURCE_DIR)
                      + "/tests/mechanisms/t5_bucket_copy.py " + test::sharedPath("fixtures/hf-tiny/t5") + " " + copy
                      + " 16 20 " + std::to_string(source.size()) + " " + std::to_string(target.size()) + " 2>&1",
                  &output),
        0)
        << output;
    auto ids = [](const std::vector<int64_t>& v) {
        std::string out;
        for (const int64_t id : v)
            out += (out.empty() ? "" : ",") + std::to_string(id);
        return out;
    };
    const std::string attention = test::makeTempDir("t5-buckets-attention");
    ASSERT_EQ(test::runCommand(test::cliPath() + " attention " + copy + " --tokens " + ids(source)
                      + " --decoder-tokens " + ids(target) + " --backend cpu --out " + attention + " 2>&1",
                  &output),
        0)
        << output;
    ModelRegistry models;
    const auto held = models.model(probeModel(copy));
    for (const auto& [block, name, model] : { std::tuple { AttentionBlock::Encoder, "encoder", "enc_attn" },
             std::tuple { AttentionBlock::Decoder, "decoder", "dec_attn" } }) {
        SCOPED_TRACE(name);
        MechanismsRequest request;
        request.source = HeadSource::Seq2Seq;
        request.modelPath = copy;
        request.sourceIds = source;
        request.targetIds = target;
        request.block = block;
        request.layer = 1;
        request.head = 3;
        request.variant = "exact";
        const MechanismsPtr r = computeMechanisms(request, models, [] { return true; });
        const PositionTables& p = *r->positions;
        EXPECT_TRUE(p.t5Bucketing.fromModel);
        EXPECT_EQ(p.t5Bucketing.buckets, 16);
        EXPECT_EQ(p.t5Bucketing.maxDistance, 20);
        const Tensor reference = readNpy(copy + "/buckets_" + name + ".npy");
        const int64_t n = r->inputs.tokens();
        ASSERT_EQ(reference.shape(), (Shape { n, n }));
        ASSERT_EQ(p.t5Buckets.rows(), n);
        ASSERT_EQ(p.relativeBias.rows(), 16);
        int64_t far = 0; // pairs in the logarithmic range, where the maximum distance decides
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j) {
                const auto bucket = static_cast<int64_t>(reference.at({ i, j }));
                ASSERT_EQ(p.t5Buckets(i, j), static_cast<double>(bucket)) << i << "," << j;
                // A gather of the float32 table: no arithmetic, so the same number.
                ASSERT_EQ(r->inputs.bias(i, j), p.relativeBias(bucket, 3)) << i << "," << j;
                far += std::abs(j - i) >= 4 ? 1 : 0;
            }
        EXPECT_GT(far, n);
        const Tensor layer = readNpy(attention + "/" + model + ".L1.npy");
        double worst = 0.0;
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < n; ++j)
                worst = std::max(worst, std::abs(r->report.exact(i, j) - layer.at({ 3, i, j })));
        EXPECT_LE(worst, 1e-5);
    }
}

} // namespace
} // namespace attn::ui
