// SPDX-License-Identifier: MIT
// The app has one engine (ARCHITECTURE.md decision 6): every tab is a client of the main window's EngineController,
// shares its one copy of the model and its backend, and no tab keeps showing or stepping a model that is no longer
// the open one.
#include "align/alignment_controller.h"
#include "align/alignment_panel.h"
#include "align/alignment_view.h"
#include "align_test_support.h"
#include "controller/engine_controller.h"
#include "decode/decode_controller.h"
#include "decode/decode_panel.h"
#include "demo_models.h"
#include "engine_test_support.h"
#include "main_window.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "support/long_context_model.h"
#include "support/shared_data.h"
#include "ui_test_support.h"
#include "vision/class_bar_chart.h"
#include "vision/image_conversion.h"
#include "vision/vision_controller.h"
#include "vision/vision_view.h"

#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <fstream>
#include <functional>
#include <optional>

#include <gtest/gtest.h>

namespace attn::ui {
namespace {

constexpr int kTimeoutMs = 120000;

/// Resident set size of this process in bytes (/proc/self/statm).
double residentBytes()
{
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return static_cast<double>(resident) * 4096.0;
}

QString demoPath(const QString& folder)
{
    for (const DemoModel& d : bundledDemoModels())
        if (d.path.endsWith("/" + folder)) return d.path;
    ADD_FAILURE() << "no bundled demo " << folder.toStdString();
    return {};
}

void decodeSteps(DecodePanel& panel, int steps)
{
    DecodeController& c = *panel.controller();
    EXPECT_TRUE(QTest::qWaitFor([&] { return c.info() != nullptr; }, kTimeoutMs)) << "the Decode tab never opened";
    c.promptIds({ 1 });
    EXPECT_TRUE(QTest::qWaitFor([&] { return c.steps().size() == 1; }, kTimeoutMs));
    for (int i = 0; i < steps; ++i) {
        const size_t before = c.steps().size();
        c.step();
        EXPECT_TRUE(QTest::qWaitFor([&] { return c.steps().size() == before + 1; }, kTimeoutMs));
    }
}

TEST(OneEngine, EveryTabSharesOneCopyOfTheWeights)
{
    // ~38 M parameters (150 MB of float32): a second copy would add far more than the 15 % allowed below.
    const test::LongContextModel model
        = test::makeLongContextModel("gpt2", 256, 48, "--layers 4 --heads 8 --width 512");
    const uint64_t loadsBefore = modelLoads();
    MainWindow window;
    QSignalSpy loaded(window.controller(), &EngineController::modelLoaded);
    QSignalSpy ran(window.controller(), &EngineController::runReady);
    window.openModel(QString::fromStdString(model.dir));
    ASSERT_TRUE(QTest::qWaitFor([&] { return loaded.count() == 1; }, kTimeoutMs));
    window.setInputText("The one engine holds one copy of the model");
    ASSERT_TRUE(QTest::qWaitFor([&] { return ran.count() >= 1; }, kTimeoutMs));
    const double afterFirst = residentBytes();

    QTabWidget* tabs = window.tabs();
    for (int i = 0; i < tabs->count(); ++i) {
        if (!tabs->isTabEnabled(i)) continue;
        tabs->setCurrentIndex(i);
        QTest::qWait(50);
    }
    tabs->setCurrentWidget(window.decodePanel());
    decodeSteps(*window.decodePanel(), 4);

    EXPECT_EQ(modelLoads() - loadsBefore, 1u) << "the main views and the Decode tab must share one load";
    EXPECT_LE(residentBytes(), 1.15 * afterFirst)
        << "resident " << residentBytes() / 1e6 << " MB after every tab, " << afterFirst / 1e6 << " MB after the first";
}

TEST(OneEngine, OpeningATranslatorLeavesNothingToStepOfTheDecoder)
{
    MainWindow window;
    QSignalSpy loaded(window.controller(), &EngineController::modelLoaded);
    window.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
    ASSERT_TRUE(QTest::qWaitFor([&] { return loaded.count() == 1; }, kTimeoutMs));
    DecodePanel& panel = *window.decodePanel();
    decodeSteps(panel, 3);
    ASSERT_EQ(panel.controller()->steps().size(), 4u);

    window.openModel(demoPath("demo-translate-marian"));
    // At once, before the translator has loaded: the stories timeline is gone.
    EXPECT_TRUE(panel.controller()->steps().empty());
    EXPECT_EQ(panel.controller()->info(), nullptr);
    ASSERT_TRUE(QTest::qWaitFor([&] { return loaded.count() == 2; }, kTimeoutMs));
    EXPECT_FALSE(window.tabs()->isTabEnabled(window.tabs()->indexOf(&panel))) << "a translator does not generate";

    QSignalSpy failed(panel.controller(), &DecodeController::failed);
    panel.controller()->step();
    ASSERT_TRUE(QTest::qWaitFor([&] { return failed.count() == 1; }, kTimeoutMs));
    EXPECT_TRUE(failed.at(0).at(0).toString().contains("no model is open")) << failed.at(0).at(0).toString().toStdString();
    QTest::qWait(100);
    EXPECT_TRUE(panel.controller()->steps().empty()) << "Step ran the previous model";
}

TEST(OneEngine, OpeningAnotherImageModelKeepsNothingOfThePrevious)
{
    MainWindow window;
    VisionView& vision = *window.visionView();
    QSignalSpy shown(&vision, &VisionView::resultShown);
    window.openDemo([] {
        for (const DemoModel& d : bundledDemoModels())
            if (d.path.endsWith("/demo-vit-shapes")) return d;
        return DemoModel {};
    }());
    ASSERT_TRUE(QTest::qWaitFor([&] { return shown.count() >= 1; }, kTimeoutMs)) << "the shapes demo showed no image";
    ASSERT_NE(vision.result(), nullptr);
    ASSERT_FALSE(vision.headViews().empty());

    window.openModel(QString::fromStdString(test::sharedPath("models/vit-mnist-tiny/hf")));
    EXPECT_EQ(vision.result(), nullptr) << "the shapes image is still shown";
    EXPECT_TRUE(vision.headViews().empty()) << "the shapes head grid is still shown";
    EXPECT_TRUE(vision.classChart()->classes().empty()) << "the shapes classes are still shown";
    QSignalSpy opened(vision.controller(), &VisionController::modelOpened);
    ASSERT_TRUE(QTest::qWaitFor([&] { return opened.count() == 1; }, kTimeoutMs));
    EXPECT_TRUE(opened.at(0).at(0).toString().contains("6 layers x 8 heads")) << opened.at(0).at(0).toString().toStdString();
}

/// Whether anyone holds the model of `path` now, asked on the engine thread (ModelRegistry::held never loads).
bool engineHolds(EngineController& engine, const std::string& path)
{
    std::optional<bool> held;
    QObject client;
    engine.post<bool>(
        &client, [path](EngineContext& context) { return context.models().held(probeModel(path)) != nullptr; },
        [&held](bool yes) { held = yes; }, [](const QString& error) { ADD_FAILURE() << error.toStdString(); });
    EXPECT_TRUE(QTest::qWaitFor([&] { return held.has_value(); }, kTimeoutMs));
    return held.value_or(true);
}

TEST(OneEngine, TheAlignmentAndVisionTabsKeepTheirModelsOnTheEngineThread)
{
    // The tabs hold no model pointer: when the engine frees every tab's state (closeModel, as opening another model
    // does), nothing GUI-side keeps the weights alive.
    EngineController engine;
    const std::string marian = test::sharedPath("fixtures/hf-tiny/marian");
    AlignmentController align(&engine);
    QSignalSpy aligned(&align, &AlignmentController::opened);
    align.open(QString::fromStdString(marian));
    ASSERT_TRUE(aligned.wait(kTimeoutMs));
    EXPECT_TRUE(engineHolds(engine, marian));
    EXPECT_TRUE(align.isOpen());

    const std::string vit = test::sharedPath("models/vit-mnist-tiny/hf");
    VisionController vision(&engine);
    QSignalSpy visionOpened(&vision, &VisionController::modelOpened);
    vision.openModel(QString::fromStdString(vit));
    ASSERT_TRUE(visionOpened.wait(kTimeoutMs));
    EXPECT_TRUE(engineHolds(engine, vit));

    engine.closeModel();
    EXPECT_FALSE(engineHolds(engine, marian)) << "the Alignment tab kept the translator alive";
    EXPECT_FALSE(engineHolds(engine, vit)) << "the Vision tab kept the image model alive";

    // A tab's own close() frees its model as well.
    vision.openModel(QString::fromStdString(vit));
    visionOpened.clear();
    ASSERT_TRUE(visionOpened.wait(kTimeoutMs));
    ASSERT_TRUE(engineHolds(engine, vit));
    vision.close();
    EXPECT_FALSE(engineHolds(engine, vit));
}

TEST(OneEngine, TheBackendChoiceReachesTheDecodeTab)
{
    MainWindow window;
    QSignalSpy backend(window.controller(), &EngineController::backendChanged);
    window.controller()->setBackend(BackendChoice::Vulkan);
    ASSERT_TRUE(QTest::qWaitFor([&] { return backend.count() >= 1; }, kTimeoutMs));
    ASSERT_TRUE(window.controller()->backendDescription().startsWith("vulkan"))
        << "CI has lavapipe; got " << window.controller()->backendDescription().toStdString() << ": "
        << backend.last().at(1).toString().toStdString();
    QSignalSpy loaded(window.controller(), &EngineController::modelLoaded);
    window.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
    ASSERT_TRUE(QTest::qWaitFor([&] { return loaded.count() == 1; }, kTimeoutMs));
    decodeSteps(*window.decodePanel(), 2);
    const auto& steps = window.decodePanel()->controller()->steps();
    ASSERT_EQ(steps.size(), 3u);
    for (const DecodeStepPtr& s : steps)
        EXPECT_NE(s->backend.find("vulkan"), std::string::npos) << "position " << s->position << " ran on " << s->backend;

    // And back: the next steps run on the CPU, in the same timeline.
    window.controller()->setBackend(BackendChoice::Cpu);
    ASSERT_TRUE(QTest::qWaitFor([&] { return backend.count() >= 2; }, kTimeoutMs));
    window.decodePanel()->controller()->step();
    ASSERT_TRUE(QTest::qWaitFor([&] { return steps.size() == 4; }, kTimeoutMs));
    EXPECT_EQ(steps.back()->backend.find("vulkan"), std::string::npos) << steps.back()->backend;
}

/// Chooses `choice` on `engine` as View > Compute backend does and waits until the engine thread has it.
void chooseBackend(EngineController& engine, BackendChoice choice, const char* expected)
{
    QSignalSpy changed(&engine, &EngineController::backendChanged);
    engine.setBackend(choice);
    ASSERT_TRUE(QTest::qWaitFor([&] { return changed.count() == 1; }, kTimeoutMs));
    ASSERT_TRUE(engine.backendDescription().startsWith(expected))
        << "CI has lavapipe; got " << engine.backendDescription().toStdString();
}

/// CPU and Vulkan agree to 1e-5 on probabilities (fp32, README "Compute backends"); a word matrix averages them.
constexpr double kBackendTolerance = 1e-5;

TEST(OneEngine, TheAlignmentTabDerivesItsCrossAttentionOnTheChosenBackend)
{
    // The tab on the app's engine with View > Compute backend > Vulkan: the run's cross-attention is derived on the
    // device (its submissions rise; a tab deriving on the CPU core leaves them where they were), and the matrices
    // shown equal the same sentence aligned on the CPU outside the app.
    EngineController engine;
    chooseBackend(engine, BackendChoice::Vulkan, "vulkan");
    AlignmentPanel panel(&engine);
    const QString demo = demoPath("demo-translate-marian");
    QSignalSpy available(&panel, &AlignmentPanel::availableChanged);
    panel.openModel(demo);
    ASSERT_TRUE(QTest::qWaitFor([&] { return available.count() == 1; }, kTimeoutMs));
    ASSERT_TRUE(available.at(0).at(0).toBool()) << panel.lastError().toStdString();
    const std::string source = "the white tree follows a car .", reference = "le arbre blanc suit une voiture .";
    panel.setSourceText(QString::fromStdString(source));
    panel.setReferenceText(QString::fromStdString(reference));
    panel.setBeamWidth(0); // the reference alone
    const uint64_t before = test::engineSubmits(engine, &panel);
    ASSERT_TRUE(test::showAndWait(
        panel, [&] { panel.align(); }, kTimeoutMs));
    ASSERT_TRUE(panel.lastError().isEmpty()) << panel.lastError().toStdString();
    EXPECT_GT(test::engineSubmits(engine, &panel), before) << "the alignment was derived on the CPU, not on Vulkan";

    const Translator translator(demo.toStdString());
    const AlignmentRunPtr cpu = runAlignment(translator, source, reference, 0);
    const auto expectShown = [&](const AlignmentAggregation& aggregation) {
        const Tensor expected = wordMatrix(cpu->hypotheses.at(0), cpu->source, aggregation);
        const Tensor& shown = panel.view()->matrix();
        ASSERT_EQ(shown.shape(), expected.shape());
        EXPECT_LE(test::maxAbsDiff(shown.data(), expected.data(), shown.numel()), kBackendTolerance);
    };
    AlignmentAggregation lastLayer; // the tab starts on the mean of the last layer's heads
    lastLayer.layer = cpu->layers() - 1;
    expectShown(lastLayer);
    AlignmentAggregation head;
    head.heads = AlignmentAggregation::Heads::One;
    head.layer = 1;
    head.head = 2;
    ASSERT_TRUE(test::showAndWait(
        panel, [&] { panel.setAggregation(head); }, kTimeoutMs));
    expectShown(head);
}

/// The alignment runs `controller` delivers, in order.
struct DeliveredRuns {
    explicit DeliveredRuns(AlignmentController& controller)
    {
        QObject::connect(
            &controller, &AlignmentController::ready, [this](AlignmentRunPtr run) { runs.push_back(run); });
        QObject::connect(&controller, &AlignmentController::failed,
            [](const QString& message) { ADD_FAILURE() << message.toStdString(); });
    }
    /// Runs `request` and waits for the run it delivers.
    AlignmentRunPtr after(const std::function<void()>& request)
    {
        const size_t before = runs.size();
        request();
        EXPECT_TRUE(QTest::qWaitFor([&] { return runs.size() > before; }, kTimeoutMs));
        return runs.size() > before ? runs.back() : nullptr;
    }
    std::vector<AlignmentRunPtr> runs;
};

/// `shown` and `cpu` hold the same hypotheses: the same target pieces, and every layer's and head's cross-attention
/// rows within the backends' tolerance.
void expectSameRun(const AlignmentRun& shown, const AlignmentRun& cpu)
{
    ASSERT_EQ(shown.hypotheses.size(), cpu.hypotheses.size());
    for (size_t i = 0; i < cpu.hypotheses.size(); ++i) {
        const AlignmentHypothesis &a = shown.hypotheses[i], &b = cpu.hypotheses[i];
        EXPECT_EQ(a.label, b.label);
        ASSERT_EQ(a.target.ids, b.target.ids) << b.label;
        ASSERT_NE(a.cross, nullptr) << b.label;
        for (int64_t l = 0; l < b.layers(); ++l)
            for (int64_t h = 0; h < b.heads(); ++h) {
                const Tensor x = *a.cross->rows(l, h, 0, a.length()), y = *b.cross->rows(l, h, 0, b.length());
                ASSERT_EQ(x.shape(), y.shape());
                EXPECT_LE(test::maxAbsDiff(x.data(), y.data(), x.numel()), kBackendTolerance)
                    << b.label << " layer " << l << " head " << h;
            }
    }
}

TEST(OneEngine, TheAlignmentTabTranslatesOnTheChosenBackend)
{
    // The Alignment tab's own forward, not only its attention: the encoder, the teacher-forced reference, the beams
    // and every step-by-step decoding step run on the backend chosen under View > Compute backend. A run's
    // cross-attention is derived lazily, when a matrix is read, so until then only the forward submits to the device.
    EngineController engine;
    chooseBackend(engine, BackendChoice::Cpu, "cpu");
    AlignmentController controller(&engine);
    DeliveredRuns delivered(controller);
    const QString demo = demoPath("demo-translate-marian");
    QSignalSpy available(&controller, &AlignmentController::available);
    controller.open(demo);
    ASSERT_TRUE(QTest::qWaitFor([&] { return available.count() == 1; }, kTimeoutMs));
    ASSERT_TRUE(available.at(0).at(0).toBool());
    const std::string source = "the white tree follows a car .", reference = "le arbre blanc suit une voiture .";
    const QString sourceText = QString::fromStdString(source);
    // Step-by-step decoding started on the CPU follows a later choice of Vulkan: its decoder is kept across jobs.
    ASSERT_NE(delivered.after([&] { controller.step(sourceText); }), nullptr);
    chooseBackend(engine, BackendChoice::Vulkan, "vulkan");
    const uint64_t beforeStep = test::engineSubmits(engine, &controller);
    const AlignmentRunPtr stepped = delivered.after([&] { controller.step(sourceText); });
    ASSERT_NE(stepped, nullptr);
    EXPECT_GT(test::engineSubmits(engine, &controller), beforeStep)
        << "the decoding step ran on the CPU chosen before, not on Vulkan";

    const uint64_t beforeAlign = test::engineSubmits(engine, &controller);
    const AlignmentRunPtr aligned
        = delivered.after([&] { controller.align(sourceText, QString::fromStdString(reference), 2); });
    ASSERT_NE(aligned, nullptr);
    EXPECT_GT(test::engineSubmits(engine, &controller), beforeAlign) << "the alignment's forward ran on the CPU";

    const Translator translator(demo.toStdString());
    expectSameRun(*aligned, *runAlignment(translator, source, reference, 2));
    StepwiseTranslation cpuSteps(translator.decoder(translator.source(source).ids), translator.startToken(),
        translator.eosToken(), translator.maxNewTokens());
    cpuSteps.step();
    cpuSteps.step();
    expectSameRun(*stepped, stepwiseRun(translator, translator.source(source), cpuSteps));
}

TEST(OneEngine, TheVisionTabClassifiesOnTheChosenBackend)
{
    // The same for the Vision tab: its forward runs on the device, and the classes, attention and rollout it shows
    // equal the image classified on the CPU.
    EngineController engine;
    chooseBackend(engine, BackendChoice::Vulkan, "vulkan");
    VisionView view(&engine);
    QSignalSpy opened(view.controller(), &VisionController::modelOpened);
    QSignalSpy shown(&view, &VisionView::resultShown);
    const QString demo = demoPath("demo-vit-shapes"), image = demo + "/samples/sample_0_circle.png";
    view.controller()->openModel(demo);
    ASSERT_TRUE(QTest::qWaitFor([&] { return opened.count() == 1; }, kTimeoutMs));
    const uint64_t before = test::engineSubmits(engine, &view);
    view.openImage(image);
    ASSERT_TRUE(QTest::qWaitFor([&] { return shown.count() >= 1; }, kTimeoutMs));
    EXPECT_GT(test::engineSubmits(engine, &view), before) << "the image was classified on the CPU, not on Vulkan";

    const auto model = std::dynamic_pointer_cast<const VisionModel>(loadModel(demo.toStdString()));
    ASSERT_NE(model, nullptr);
    const VisionResultPtr cpu = classifyImage(*model, loadImageFile(image));
    const VisionResult& device = *view.result();
    ASSERT_EQ(device.topClasses.size(), cpu->topClasses.size());
    for (size_t i = 0; i < cpu->topClasses.size(); ++i) {
        EXPECT_EQ(device.topClasses[i].label, cpu->topClasses[i].label) << "rank " << i;
        EXPECT_NEAR(device.topClasses[i].probability, cpu->topClasses[i].probability, kBackendTolerance);
    }
    for (int64_t l = 0; l < cpu->numLayers(); ++l)
        for (int64_t h = 0; h < cpu->numHeads(); ++h) {
            const std::vector<float> a = device.patchAttention(l, h, 0), b = cpu->patchAttention(l, h, 0);
            ASSERT_EQ(a.size(), b.size());
            EXPECT_LE(test::maxAbsDiff(a.data(), b.data(), static_cast<int64_t>(a.size())), kBackendTolerance)
                << "layer " << l << " head " << h;
        }
    ASSERT_EQ(device.rollout.shape(), cpu->rollout.shape());
    EXPECT_LE(test::maxAbsDiff(device.rollout.data(), cpu->rollout.data(), cpu->rollout.numel()), kBackendTolerance);
}

} // namespace
} // namespace attn::ui
