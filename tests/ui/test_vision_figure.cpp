// SPDX-License-Identifier: MIT
// Vision figures (`"view": "vision"` recipes): what renderVisionFigure draws is the engine's attention and rollout
// (each patch of an opaque blocky overlay has exactly the colormap colour of its value), the class chart stays vector
// in SVG, and `attnscope-cli export --view vision` writes the same figure as the recipe it saves.
#include "analysis/rollout.h"
#include "core/error.h"
#include "export/figure_recipe.h"
#include "export/vision_figure_export.h"
#include "model/model_loader.h"
#include "support/shared_data.h"
#include "vision/class_bar_chart.h"
#include "vision/image_conversion.h"
#include "vision/patch_map_view.h"
#include "vision/vision_figure.h"

#include <QBuffer>
#include <QFile>
#include <QFont>
#include <QImage>
#include <QRegularExpression>
#include <QSet>
#include <QSvgGenerator>

#include <gtest/gtest.h>

#include <algorithm>

namespace attn::ui {
namespace {

const std::string kModel = "models/vit-mnist-tiny/hf";
const std::string kDigit = "models/vit-mnist-tiny/samples/mnist_t10k_0002_label1.png";

std::shared_ptr<const VisionModel> mnistModel()
{
    auto model = std::dynamic_pointer_cast<const VisionModel>(loadModel(test::sharedPath(kModel)));
    if (!model) throw std::runtime_error("the MNIST ViT did not load as a vision model");
    return model;
}

VisionResultPtr mnistResult()
{
    return classifyImage(*mnistModel(), loadImageFile(QString::fromStdString(test::sharedPath(kDigit))));
}

QByteArray readAll(const std::string& path)
{
    QFile file(QString::fromStdString(path));
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// A recipe for one opaque, blocky, grid-less map, so every patch centre shows exactly its colormap colour.
FigureRecipe mapRecipe(VisionPanel panel, int64_t layer, int64_t head, int64_t query)
{
    FigureRecipe r;
    r.view = FigureView::Vision;
    r.layer = layer;
    r.head = head;
    r.selectedToken = query;
    r.colormap = Colormap::Magma;
    r.vision.panel = panel;
    r.vision.opacity = 1.0;
    r.vision.smooth = false;
    r.vision.showGrid = false;
    r.width = 360;
    r.height = 380;
    return r;
}

/// Where the exported single map puts its image: the map view's own layout at the figure size.
QRect mapImageRect(const VisionResult& result, const FigureRecipe& recipe)
{
    PatchMapView probe;
    probe.setContent(
        result.image, result.grid, std::vector<float>(static_cast<size_t>(result.grid.patches()), 1.0f), "title");
    probe.resize(recipe.width, recipe.height);
    return probe.imageRect();
}

/// Checks the figure's patch colours against `values` and returns the patch whose colour is brightest.
int64_t checkPatchColours(
    const QImage& image, const QRect& area, const VisionResult& result, const std::vector<float>& values, Colormap map)
{
    const float maxValue = *std::max_element(values.begin(), values.end());
    int64_t brightest = -1;
    double best = -1.0;
    for (int64_t p = 0; p < result.grid.patches(); ++p) {
        const int x = area.x() + static_cast<int>(((p % result.grid.cols) + 0.5) * area.width() / result.grid.cols);
        const int y = area.y() + static_cast<int>(((p / result.grid.cols) + 0.5) * area.height() / result.grid.rows);
        const QColor shown = image.pixelColor(x, y);
        const QColor expected = colormapColor(map, values[static_cast<size_t>(p)] / maxValue);
        EXPECT_LE(std::abs(shown.red() - expected.red()) + std::abs(shown.green() - expected.green())
                + std::abs(shown.blue() - expected.blue()),
            3)
            << "patch " << p << " shows " << shown.name().toStdString() << ", its value's colour is "
            << expected.name().toStdString();
        const double luminance = 0.299 * shown.red() + 0.587 * shown.green() + 0.114 * shown.blue();
        if (luminance > best) best = luminance, brightest = p;
    }
    return brightest;
}

TEST(VisionFigure, AttentionOverlayShowsTheEnginesRowAndItsBrightestPatchIsTheArgmax)
{
    const auto model = mnistModel();
    const VisionResultPtr result = mnistResult();
    // The engine's own run, independent of the view: attention of a patch query in the last layer, head 3.
    const QImage gray
        = QImage(QString::fromStdString(test::sharedPath(kDigit))).convertToFormat(QImage::Format_Grayscale8);
    const StepResult engine = model->classify(model->preprocess(imageBufferFromQImage(gray)), ForwardOptions {});
    const int64_t t = result->numTokens(), layer = result->numLayers() - 1, head = 3;
    const int64_t query = result->prefixTokens + result->grid.patches() / 2 + 1;
    const float* row = engine.attention[static_cast<size_t>(layer)].data() + (head * t + query) * t;
    const std::vector<float> expected(row + result->prefixTokens, row + t);

    const std::string dir = test::makeTempDir("vision-figure");
    const FigureRecipe recipe = mapRecipe(VisionPanel::Attention, layer, head, query);
    renderVisionFigure(result, recipe, QString::fromStdString(dir + "/a.png"), FigureFormat::Png);
    QImage image;
    ASSERT_TRUE(image.load(QString::fromStdString(dir + "/a.png")));
    EXPECT_EQ(image.size(), QSize(360, 380));
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    EXPECT_GT(colours.size(), 20) << "the figure is (nearly) blank";

    const int64_t brightest
        = checkPatchColours(image, mapImageRect(*result, recipe), *result, expected, recipe.colormap);
    EXPECT_EQ(brightest, std::max_element(expected.begin(), expected.end()) - expected.begin());
}

TEST(VisionFigure, RolloutPanelFollowsTheRecipesFusionAndDiscardRatio)
{
    const VisionResultPtr result = mnistResult();
    FigureRecipe recipe = mapRecipe(VisionPanel::Rollout, 0, 0, 0);
    recipe.vision.rollout.fusion = HeadFusion::Max;
    recipe.vision.rollout.discardRatio = 0.5;
    const std::string path = test::makeTempDir("vision-rollout") + "/r.png";
    renderVisionFigure(result, recipe, QString::fromStdString(path), FigureFormat::Png);
    QImage image;
    ASSERT_TRUE(image.load(QString::fromStdString(path)));
    const Tensor rollout = attentionRollout(result->layerAttention(), recipe.vision.rollout);
    const std::vector<float> expected = result->rowPatches(rollout, 0);
    EXPECT_NE(expected, result->rolloutPatches(0)) << "max fusion with discarding should differ from the mean";
    const int64_t brightest
        = checkPatchColours(image, mapImageRect(*result, recipe), *result, expected, recipe.colormap);
    EXPECT_EQ(brightest, std::max_element(expected.begin(), expected.end()) - expected.begin());
}

TEST(VisionFigure, HeadsGridHasOneThumbnailPerHeadAndRejectsHeadsOutsideTheModel)
{
    const VisionResultPtr result = mnistResult();
    FigureRecipe recipe = mapRecipe(VisionPanel::Heads, 0, 0, 0);
    recipe.width = recipe.height = 0; // natural size
    const std::string dir = test::makeTempDir("vision-heads");
    renderVisionFigure(result, recipe, QString::fromStdString(dir + "/h.png"), FigureFormat::Png);
    QImage image;
    ASSERT_TRUE(image.load(QString::fromStdString(dir + "/h.png")));
    VisionFigure grid(VisionPanel::Heads);
    grid.setResult(result);
    ASSERT_EQ(grid.headViews().size(), static_cast<size_t>(result->numLayers() * result->numHeads()));
    EXPECT_GE(image.width(), static_cast<int>(result->numHeads()) * grid.headViews().front()->width());
    EXPECT_GE(image.height(), static_cast<int>(result->numLayers()) * grid.headViews().front()->height());

    recipe.head = result->numHeads();
    EXPECT_THROW(
        renderVisionFigure(result, recipe, QString::fromStdString(dir + "/bad.png"), FigureFormat::Png), Error);
    recipe.head = -1; // mean of heads is allowed
    recipe.selectedToken = result->numTokens();
    EXPECT_THROW(
        renderVisionFigure(result, recipe, QString::fromStdString(dir + "/bad.png"), FigureFormat::Png), Error);
}

TEST(VisionFigure, NoClassLabelIsElidedWhenTheChartHasRoom)
{
    // The widest label set the label column to its width in whole pixels, and elidedText, measuring in fractional
    // ones, shortened it to "trian…" beside a bar with room to spare.
    for (const int points : { 8, 9, 10, 11, 12 }) {
        SCOPED_TRACE(points);
        ClassBarChart chart;
        chart.setFont(QFont(QStringLiteral("Sans Serif"), points)); // exact fits depend on the size: several
        chart.resize(320, 340);
        const std::vector<std::string> labels { "triangle", "circle", "square", "cross", "tabby cat" };
        std::vector<ClassScore> classes;
        for (const std::string& label : labels)
            classes.push_back({ label, 0.2 });
        chart.setClasses(classes);
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(chart.size());
        chart.render(&generator);
        buffer.close(); // QSvgGenerator finishes the document when its painter ends, inside render()
        const QString svg = QString::fromUtf8(buffer.data());
        for (const std::string& label : labels)
            EXPECT_TRUE(svg.contains(">" + QString::fromStdString(label) + "<")) << label;
        EXPECT_FALSE(svg.contains(QChar(0x2026))) << "an elided label";
    }
}

TEST(VisionFigure, ClassChartIsVectorInSvgAndPdf)
{
    const VisionResultPtr result = mnistResult();
    FigureRecipe recipe = mapRecipe(VisionPanel::Maps, 2, -1, 0);
    recipe.width = recipe.height = 0;
    const std::string dir = test::makeTempDir("vision-svg");
    renderVisionFigure(result, recipe, QString::fromStdString(dir + "/m.svg"), FigureFormat::Svg);
    const QString svg = QString::fromUtf8(readAll(dir + "/m.svg"));
    ASSERT_TRUE(svg.trimmed().endsWith("</svg>"));
    EXPECT_TRUE(svg.contains(">top-5 classes<")) << "chart text is vector text";
    EXPECT_TRUE(svg.contains(">" + QString::fromStdString(result->topClasses.front().label) + "<"));
    // One filled vector shape per class in the bar colour (QSvgGenerator groups shapes under their fill).
    const QString fill = "fill=\"" + ClassBarChart::barColor().name() + "\"";
    int bars = 0;
    std::vector<double> widths;
    // A bar is a <rect> when painted straight into the generator, a rectangular <path> ("M x0,y L x1,y ...") when
    // replayed from the recorded picture that exports draw on a worker.
    const QRegularExpression rectWidth(R"re(<rect [^>]*width="([0-9.e+-]+)")re");
    const QRegularExpression pathWidth(R"re(<path [^>]*d="M([0-9.e+-]+),([0-9.e+-]+) L([0-9.e+-]+),\2 )re");
    for (qsizetype at = svg.indexOf(fill); at >= 0; at = svg.indexOf(fill, at + 1)) {
        const qsizetype end = svg.indexOf("</g>", at);
        const QString group = svg.mid(at, end - at);
        bars += static_cast<int>(group.count("<rect") + group.count("<path") + group.count("<polygon"));
        if (const auto match = rectWidth.match(group); match.hasMatch())
            widths.push_back(match.captured(1).toDouble());
        else if (const auto path = pathWidth.match(group); path.hasMatch())
            widths.push_back(path.captured(3).toDouble() - path.captured(1).toDouble());
    }
    EXPECT_EQ(bars, static_cast<int>(result->topClasses.size())) << "the bars are not vector shapes";
    // Bar lengths are proportional to the probabilities.
    ASSERT_EQ(widths.size(), result->topClasses.size());
    for (size_t i = 1; i < widths.size(); ++i)
        EXPECT_NEAR(widths[i] / widths[0], result->topClasses[i].probability / result->topClasses[0].probability, 1e-3)
            << "class " << i;
    // The maps: overlays are raster images, their titles vector text.
    EXPECT_TRUE(svg.contains("<image")) << "the overlays";
    EXPECT_TRUE(svg.contains(">Rollout (mean of heads) of [CLS]<"));
    EXPECT_TRUE(svg.contains(">Attention flow (mean of heads) into [CLS]<")) << "17 tokens: the flow is computed";

    renderVisionFigure(result, recipe, QString::fromStdString(dir + "/m.pdf"), FigureFormat::Pdf);
    EXPECT_TRUE(readAll(dir + "/m.pdf").startsWith("%PDF"));
}

TEST(VisionFigure, RecipeRoundTripsItsVisionKeys)
{
    FigureRecipe r = mapRecipe(VisionPanel::Flow, 3, -1, 9);
    r.model = "m";
    r.image = "digit.png";
    r.vision.rollout.fusion = HeadFusion::Min;
    r.vision.rollout.discardRatio = 0.25;
    r.vision.smooth = true;
    const FigureRecipe back = recipeFromJson(recipeToJson(r), "test");
    EXPECT_EQ(back.view, FigureView::Vision);
    EXPECT_EQ(back.image, "digit.png");
    EXPECT_EQ(back.head, -1);
    EXPECT_EQ(back.selectedToken, 9);
    EXPECT_EQ(back.vision.panel, VisionPanel::Flow);
    EXPECT_EQ(back.vision.rollout.fusion, HeadFusion::Min);
    EXPECT_EQ(back.vision.rollout.discardRatio, 0.25);
    EXPECT_TRUE(back.vision.smooth);
    EXPECT_FALSE(back.vision.showGrid);
    EXPECT_THROW(recipeFromJson(R"({"view": "vision", "vision_panel": "nope"})", "test"), Error);
    EXPECT_THROW(recipeFromJson(R"({"view": "vision", "fusion": "median"})", "test"), Error);
    // Other views' recipes do not grow vision keys.
    FigureRecipe heatmap;
    heatmap.model = "m";
    EXPECT_FALSE(QString::fromStdString(recipeToJson(heatmap)).contains("fusion"));
}

int runCliHeadless(const std::string& arguments, std::string* output)
{
    return test::runCommand(
        "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM '" + test::cliPath() + "' export " + arguments, output);
}

TEST(VisionFigureCli, ExportWritesTheFigureItsRecipeReproduces)
{
    const std::string dir = test::makeTempDir("vision-cli");
    const std::string common = "'" + test::sharedPath(kModel) + "' --image '" + test::sharedPath(kDigit)
        + "' --view vision --layer 5 --head 2 --token 10 --fusion max --opacity 0.8 ";
    std::string out;
    ASSERT_EQ(runCliHeadless(common + "--format png --dpi 144 --out " + dir + "/a.png", &out), 0) << out;
    QImage image;
    ASSERT_TRUE(image.load(QString::fromStdString(dir + "/a.png")));
    EXPECT_EQ(image.size(), QSize(1860, 540)) << "maps at 1240 x 360, 144 dpi";
    ASSERT_EQ(runCliHeadless(common + "--dpi 144 --format json --out " + dir + "/r.json", &out), 0) << out;
    ASSERT_EQ(runCliHeadless("--recipe " + dir + "/r.json --format png --out " + dir + "/b.png", &out), 0) << out;
    EXPECT_EQ(readAll(dir + "/a.png"), readAll(dir + "/b.png"));
    for (const char* format : { "svg", "pdf" }) {
        ASSERT_EQ(
            runCliHeadless(common + "--panel heads --format " + format + " --out " + dir + "/h." + format, &out), 0)
            << out;
        EXPECT_GT(readAll(dir + "/h." + format).size(), 1000);
    }
    // The stored pixel tensor of the fixture works as the image too.
    ASSERT_EQ(runCliHeadless("'" + test::sharedPath("fixtures/hf-tiny/vit") + "' --image '"
                      + test::sharedPath("fixtures/hf-tiny/vit/golden/item0/pixel_values.npy")
                      + "' --view vision --panel attention --format png --out " + dir + "/f.png",
                  &out),
        0)
        << out;
    EXPECT_NE(runCliHeadless(common + "--head 8 --format png --out " + dir + "/bad.png", &out), 0);
    EXPECT_NE(out.find("head 8"), std::string::npos) << out;
    EXPECT_EQ(runCliHeadless(common + "--format npy --out " + dir + "/d.npy", &out), 2) << out;
}

} // namespace
} // namespace attn::ui
