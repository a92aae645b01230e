// SPDX-License-Identifier: MIT
// The vision view on the MNIST ViT: its numbers are the engine's attention, rollout and flow, the overlay's brightest
// patch is the most attended one, clicks select patches, and the controller runs it all off the GUI thread.
#include "analysis/rollout.h"
#include "core/error.h"
#include "core/npy.h"
#include "export/export_menu.h"
#include "main_window.h"
#include "model/model_loader.h"
#include "plots/heatmap_view.h"
#include "support/shared_data.h"
#include "ui_test_support.h"
#include "vision/image_conversion.h"
#include "vision/patch_map_view.h"
#include "vision/vision_controller.h"
#include "vision/vision_view.h"

#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace attn::ui {
namespace {

const std::string kModel = "models/vit-mnist-tiny/hf";
const std::string kDigit = "models/vit-mnist-tiny/samples/mnist_t10k_0000_label7.png";

std::shared_ptr<const VisionModel> mnistModel()
{
    auto model = std::dynamic_pointer_cast<const VisionModel>(loadModel(test::sharedPath(kModel)));
    if (!model) throw std::runtime_error("the MNIST ViT did not load as a vision model");
    return model;
}

/// The engine's own run on the digit, with the pixels read independently of the view's image conversion.
StepResult engineRun(const VisionModel& model)
{
    const QImage gray
        = QImage(QString::fromStdString(test::sharedPath(kDigit))).convertToFormat(QImage::Format_Grayscale8);
    ImageBuffer buffer { gray.width(), gray.height(), 1, {} };
    for (int y = 0; y < gray.height(); ++y)
        for (int x = 0; x < gray.width(); ++x)
            buffer.pixels.push_back(static_cast<uint8_t>(qGray(gray.pixel(x, y))));
    return model.classify(model.preprocess(buffer), ForwardOptions {});
}

/// Patch part of row `query` of a [.., T, T] block starting at `rowBase`.
std::vector<float> patchesOfRow(const float* rowBase, int64_t prefix, int64_t patches)
{
    return { rowBase + prefix, rowBase + prefix + patches };
}

void expectNear(const std::vector<float>& a, const std::vector<float>& b, double tolerance)
{
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], tolerance) << "patch " << i;
}

double luminance(QColor c)
{
    return 0.299 * c.red() + 0.587 * c.green() + 0.114 * c.blue();
}

TEST(VisionView, ShowsTheEnginesAttentionAndRolloutForEveryHead)
{
    const auto model = mnistModel();
    const StepResult engine = engineRun(*model);
    VisionView view;
    view.setResult(classifyImage(*model, loadImageFile(QString::fromStdString(test::sharedPath(kDigit)))));
    const VisionResult& r = *view.result();
    ASSERT_EQ(r.numLayers(), static_cast<int64_t>(engine.attention.size()));
    const int64_t t = r.numTokens();
    ASSERT_EQ(t, engine.attention.front().dim(2));
    ASSERT_EQ(r.prefixTokens + r.grid.patches(), t);
    ASSERT_EQ(view.headViews().size(), static_cast<size_t>(r.numLayers() * r.numHeads()));

    const int64_t query = r.prefixTokens + r.grid.patches() / 2; // a patch in the middle of the digit
    view.setQuery(query);
    for (int64_t l = 0; l < r.numLayers(); ++l)
        for (int64_t h = 0; h < r.numHeads(); ++h)
            expectNear(view.headViews()[static_cast<size_t>(l * r.numHeads() + h)]->values(),
                patchesOfRow(engine.attention[static_cast<size_t>(l)].data() + (h * t + query) * t, r.prefixTokens,
                    r.grid.patches()),
                1e-6);

    view.setHead(r.numLayers() - 1, 2);
    expectNear(view.attentionView()->values(),
        patchesOfRow(engine.attention.back().data() + (2 * t + query) * t, r.prefixTokens, r.grid.patches()), 1e-6);

    const Tensor rollout = attentionRollout(engine.attention, RolloutOptions {});
    expectNear(
        view.rolloutView()->values(), patchesOfRow(rollout.data() + query * t, r.prefixTokens, r.grid.patches()), 1e-5);

    // Top class: PyTorch's prediction for test image 0 (reference_predictions_first100.json: pred 7, p = 0.999904).
    ASSERT_FALSE(r.topClasses.empty());
    EXPECT_EQ(r.topClasses.front().label, "7");
    EXPECT_NEAR(r.topClasses.front().probability, 0.999904, 1e-4);
    for (size_t i = 1; i < r.topClasses.size(); ++i)
        EXPECT_GE(r.topClasses[i - 1].probability, r.topClasses[i].probability);
}

TEST(VisionView, OverlaysBrightestPatchIsTheMostAttendedPatch)
{
    const auto model = mnistModel();
    VisionView view;
    view.setResult(classifyImage(*model, loadImageFile(QString::fromStdString(test::sharedPath(kDigit)))));
    view.setStyle({ Colormap::Viridis, 1.0, false }); // opaque and blocky: each patch shows exactly its colour
    const VisionResult& r = *view.result();
    int checked = 0;
    for (int64_t l = 0; l < r.numLayers(); ++l)
        for (int64_t h = 0; h < r.numHeads(); ++h) {
            view.setHead(l, h);
            const std::vector<float>& values = view.attentionView()->values();
            std::vector<float> sorted = values;
            std::sort(sorted.rbegin(), sorted.rend());
            if (sorted[0] - sorted[1] < 0.02f * sorted[0]) continue; // near ties are not distinguishable by colour
            const int cell = 10;
            const QImage image = view.attentionView()->overlayImage(
                QSize(static_cast<int>(r.grid.cols) * cell, static_cast<int>(r.grid.rows) * cell));
            int64_t brightest = -1;
            double best = -1.0;
            for (int64_t p = 0; p < r.grid.patches(); ++p) {
                const double y = luminance(image.pixelColor(static_cast<int>(p % r.grid.cols) * cell + cell / 2,
                    static_cast<int>(p / r.grid.cols) * cell + cell / 2));
                if (y > best) best = y, brightest = p;
            }
            EXPECT_EQ(brightest, std::max_element(values.begin(), values.end()) - values.begin())
                << "layer " << l << " head " << h;
            ++checked;
        }
    EXPECT_GT(checked, 0);
}

TEST(VisionView, ClickingAPatchSelectsItAsTheQuery)
{
    const auto model = mnistModel();
    VisionView view;
    view.resize(1200, 800);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.setResult(classifyImage(*model, loadImageFile(QString::fromStdString(test::sharedPath(kDigit)))));
    const VisionResult& r = *view.result();
    EXPECT_EQ(view.query(), 0); // [CLS]
    const QRect area = view.attentionView()->imageRect();
    const int64_t row = 1, col = r.grid.cols - 2;
    const QPoint centre(area.x() + static_cast<int>((col + 0.5) * area.width() / r.grid.cols),
        area.y() + static_cast<int>((row + 0.5) * area.height() / r.grid.rows));
    QTest::mouseClick(view.attentionView(), Qt::LeftButton, {}, centre);
    EXPECT_EQ(view.query(), r.prefixTokens + row * r.grid.cols + col);
}

/// The patch whose colour is brightest in `view`'s overlay (opaque, blocky style), one sample per patch centre.
int64_t brightestPatch(const PatchMapView& view)
{
    const int cell = 10;
    const PatchGrid grid = view.grid();
    const QImage image
        = view.overlayImage(QSize(static_cast<int>(grid.cols) * cell, static_cast<int>(grid.rows) * cell));
    int64_t brightest = -1;
    double best = -1.0;
    for (int64_t p = 0; p < grid.patches(); ++p) {
        const double y = luminance(image.pixelColor(
            static_cast<int>(p % grid.cols) * cell + cell / 2, static_cast<int>(p / grid.cols) * cell + cell / 2));
        if (y > best) best = y, brightest = p;
    }
    return brightest;
}

TEST(VisionView, FusionControlRecomputesTheRolloutAndFlowAsTheEngineDoes)
{
    const auto model = mnistModel();
    VisionView view;
    QSignalSpy opened(view.controller(), &VisionController::modelOpened);
    QSignalSpy shown(&view, &VisionView::resultShown);
    view.controller()->openModel(QString::fromStdString(test::sharedPath(kModel)));
    ASSERT_TRUE(opened.wait(30000));
    view.openImage(QString::fromStdString(test::sharedPath(kDigit)));
    ASSERT_TRUE(shown.wait(30000));
    const VisionResult& r = *view.result();
    const int64_t query = r.prefixTokens + 5;
    view.setQuery(query);
    const std::vector<float> meanMap = view.rolloutView()->values();

    QSignalSpy rolloutShown(&view, &VisionView::rolloutShown);
    QSignalSpy flowShown(&view, &VisionView::flowShown);
    auto* fusion = view.findChild<QComboBox*>("fusionBox");
    ASSERT_NE(fusion, nullptr);
    fusion->setCurrentIndex(fusion->findData(static_cast<int>(HeadFusion::Max)));
    ASSERT_TRUE(rolloutShown.wait(30000));
    RolloutOptions max;
    max.fusion = HeadFusion::Max;
    const Tensor rollout = attentionRollout(r.attention, max);
    EXPECT_NE(view.rolloutView()->values(), meanMap) << "changing the fusion did not change the shown map";
    expectNear(view.rolloutView()->values(), r.rowPatches(rollout, query), 1e-6);
    ASSERT_TRUE(flowShown.count() > 0 || flowShown.wait(30000));
    const Tensor flow = attentionFlow(r.attention, query, max);
    expectNear(view.flowView()->values(), r.patchPart(flow.data()), 1e-6);

    // The discard ratio too: min fusion with half of each layer's entries dropped.
    rolloutShown.clear();
    view.findChild<QDoubleSpinBox*>("discardBox")->setValue(0.5);
    ASSERT_TRUE(rolloutShown.wait(30000));
    max.discardRatio = 0.5;
    expectNear(view.rolloutView()->values(), r.rowPatches(attentionRollout(r.attention, max), query), 1e-6);
    EXPECT_EQ(view.figureRecipe().vision.rollout.discardRatio, 0.5);
    EXPECT_EQ(view.figureRecipe().vision.rollout.fusion, HeadFusion::Max);
}

TEST(VisionView, FixturePixelTensorShowsTheGoldenAttention)
{
    const std::string fixture = test::sharedPath("fixtures/hf-tiny/vit");
    QFile manifestFile(QString::fromStdString(fixture + "/manifest.json"));
    ASSERT_TRUE(manifestFile.open(QIODevice::ReadOnly));
    const QJsonObject manifest = QJsonDocument::fromJson(manifestFile.readAll()).object();
    const double tolerance
        = manifest["suggested_tolerances"].toObject()["max_abs_diff"].toObject()["attentions"].toDouble();
    ASSERT_GT(tolerance, 0.0);

    VisionView view;
    view.setStyle({ Colormap::Viridis, 1.0, false });
    QSignalSpy opened(view.controller(), &VisionController::modelOpened);
    QSignalSpy shown(&view, &VisionView::resultShown);
    QSignalSpy errors(&view, &VisionView::errorShown);
    view.controller()->openModel(QString::fromStdString(fixture));
    ASSERT_TRUE(opened.wait(30000));
    view.openImage(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/vit/golden/item0/pixel_values.npy")));
    ASSERT_TRUE(shown.wait(30000)) << (errors.isEmpty() ? "" : errors.front().front().toString().toStdString());
    const VisionResult& r = *view.result();
    ASSERT_EQ(r.numTokens(), manifest["inputs"].toObject()["tokens"].toInt());
    ASSERT_EQ(r.image.size(), QSize(32, 32)) << "the pixels are shown as an image";

    int checked = 0;
    for (int64_t l = 0; l < r.numLayers(); ++l) {
        const Tensor golden = test::goldenAttention("vit", static_cast<int>(l));
        ASSERT_EQ(golden.dim(0), r.numHeads());
        for (int64_t query : { int64_t { 0 }, r.prefixTokens + 6 }) {
            view.setQuery(query);
            for (int64_t h = 0; h < r.numHeads(); ++h) {
                view.setHead(l, h);
                const float* row = golden.data() + (h * r.numTokens() + query) * r.numTokens();
                const std::vector<float> expected(row + r.prefixTokens, row + r.numTokens());
                expectNear(view.attentionView()->values(), expected, tolerance);
                expectNear(view.headViews()[static_cast<size_t>(l * r.numHeads() + h)]->values(), expected, tolerance);
                std::vector<float> sorted = expected;
                std::sort(sorted.rbegin(), sorted.rend());
                if (sorted[0] - sorted[1] < 0.02f * sorted[0]) continue; // near ties are not distinguishable
                EXPECT_EQ(brightestPatch(*view.attentionView()),
                    std::max_element(expected.begin(), expected.end()) - expected.begin())
                    << "layer " << l << " head " << h << " query " << query;
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 4);
}

TEST(VisionController, ClassifiesOffTheGuiThreadAndComputesTheFlow)
{
    EXPECT_TRUE(isVisionModelPath(QString::fromStdString(test::sharedPath(kModel))));
    EXPECT_FALSE(isVisionModelPath(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/bert"))));
    VisionView view;
    QSignalSpy opened(view.controller(), &VisionController::modelOpened);
    QSignalSpy shown(&view, &VisionView::resultShown);
    QSignalSpy flowShown(&view, &VisionView::flowShown);
    view.controller()->openModel(QString::fromStdString(test::sharedPath(kModel)));
    ASSERT_TRUE(opened.wait(30000));
    view.openImage(QString::fromStdString(test::sharedPath(kDigit)));
    ASSERT_TRUE(shown.wait(30000));
    ASSERT_TRUE(flowShown.count() > 0 || flowShown.wait(30000));
    const VisionResult& r = *view.result();
    const Tensor flow = attentionFlow(r.attention, 0, RolloutOptions {});
    expectNear(view.flowView()->values(), patchesOfRow(flow.data(), r.prefixTokens, r.grid.patches()), 1e-6);
}

TEST(VisionController, ReportsANonVisionModelAndAMissingImage)
{
    VisionView view;
    QSignalSpy failed(view.controller(), &VisionController::failed);
    QSignalSpy errors(&view, &VisionView::errorShown);
    view.controller()->openModel(QString::fromStdString(test::sharedPath("fixtures/hf-tiny/bert")));
    ASSERT_TRUE(failed.wait(30000));
    EXPECT_TRUE(failed.front().front().toString().contains("not a vision model"))
        << failed.front().front().toString().toStdString();
    view.openImage("/nonexistent/image.png");
    ASSERT_GE(errors.count(), 1);
    EXPECT_TRUE(errors.back().front().toString().contains("/nonexistent/image.png"));
}

TEST(MainWindow, AVisionModelGetsTheVisionTabInsteadOfTheTextInput)
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    QSignalSpy opened(window.visionView()->controller(), &VisionController::modelOpened);
    window.openModel(QString::fromStdString(test::sharedPath(kModel)));
    ASSERT_TRUE(opened.wait(30000)) << window.lastError().toStdString();
    EXPECT_EQ(window.tabs()->currentWidget(), window.visionView());
    EXPECT_FALSE(window.tabs()->isTabEnabled(window.tabs()->indexOf(window.heatmapView())));
    EXPECT_FALSE(window.findChild<QDockWidget*>("inputDock")->isVisible());
    QSignalSpy shown(window.visionView(), &VisionView::resultShown);
    QSignalSpy flowShown(window.visionView(), &VisionView::flowShown);
    window.visionView()->openImage(QString::fromStdString(test::sharedPath(kDigit)));
    ASSERT_TRUE(shown.wait(30000)) << window.lastError().toStdString();
    ASSERT_TRUE(flowShown.count() > 0 || flowShown.wait(30000));
    EXPECT_TRUE(window.lastError().isEmpty());
    // The status bar names the image and its best class, not the "open an image" hint any more.
    const QString status = window.findChild<QLabel*>("statusText")->text();
    const ClassScore& best = window.visionView()->result()->topClasses.front();
    EXPECT_TRUE(status.contains(QString::fromStdString(best.label) + " (p = ")) << status.toStdString();
    EXPECT_TRUE(status.startsWith(QFileInfo(QString::fromStdString(kDigit)).fileName())) << status.toStdString();
    // Export > figure on this tab draws the maps and the class chart, not the controls above them.
    const std::string svg = test::makeTempDir("vision-export") + "/vision.svg";
    window.findChild<ExportMenu*>()->exportFigure(QString::fromStdString(svg), 96);
    QFile file(QString::fromStdString(svg));
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    const QByteArray content = file.readAll();
    EXPECT_TRUE(content.contains(">Rollout (mean of heads) of [CLS]<")) << "the maps' titles are vector text";
    EXPECT_FALSE(content.contains(">opacity<")) << "the control bar was exported too";
    // Export > data writes every layer's attention of the classified image, exactly the view's result.
    const std::string npy = test::makeTempDir("vision-data") + "/attention.npy";
    window.findChild<ExportMenu*>()->exportData(QString::fromStdString(npy));
    const Tensor saved = readNpy(npy);
    const VisionResultPtr result = window.visionView()->result();
    ASSERT_EQ(saved.dim(0), static_cast<int64_t>(result->attention.size()));
    for (size_t l = 0; l < result->attention.size(); ++l) {
        const Tensor& layer = result->attention[l];
        ASSERT_EQ(saved.numel() / saved.dim(0), layer.numel());
        EXPECT_TRUE(std::equal(
            layer.data(), layer.data() + layer.numel(), saved.data() + l * static_cast<size_t>(layer.numel())))
            << "layer " << l;
    }
    EXPECT_THROW(window.findChild<ExportMenu*>()->exportData(QString::fromStdString(npy + ".csv")), Error);
    // The README screenshot: written only when asked for, after the same checks.
    if (const QByteArray out = qgetenv("ATTN_VISION_SCREENSHOT"); !out.isEmpty()) {
        window.visionView()->setQuery(0);
        QTest::qWait(200);
        EXPECT_TRUE(window.grab().save(QString::fromLocal8Bit(out)));
    }
}

} // namespace
} // namespace attn::ui
