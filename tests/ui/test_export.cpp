// SPDX-License-Identifier: MIT
// Figure and data export: SVG/PDF/PNG files from every view, .npy and CSV data, recipes, and the headless CLI.
#include "core/error.h"
#include "export/export_menu.h"
#include "export/figure_data.h"
#include "export/figure_export.h"
#include "export/figure_renderer.h"
#include "export/recipe_snapshot.h"
#include "file_dialogs.h"
#include "main_window.h"
#include "model/token_text.h"
#include "plots/colormaps.h"
#include "plots/heatmap_view.h"
#include "plots/stats_view.h"
#include "support/shared_data.h"
#include "widgets/head_grid_view.h"
#include "widgets/head_lines_view.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QXmlStreamReader>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace attn::ui {
namespace {

const char* kPrompt = "Once upon a time, there was a little cat";

FigureRecipe storiesRecipe(FigureView view)
{
    FigureRecipe r;
    r.model = test::sharedPath("models/stories260K/stories260K.bin");
    r.prompt = kPrompt;
    r.view = view;
    r.layer = 2;
    r.head = 3;
    return r;
}

// stories260K over the prompt, computed once: 5 layers x 8 heads, a dozen tokens.
const SnapshotPtr& storiesSnapshot()
{
    static const SnapshotPtr snapshot = computeRecipeSnapshot(storiesRecipe(FigureView::Heatmap));
    return snapshot;
}

QByteArray readAll(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << path;
    return f.readAll();
}

std::string render(const FigureRecipe& r, const std::string& name, FigureFormat format)
{
    static const std::string dir = test::makeTempDir("ui-export");
    const std::string path = dir + "/" + name;
    FigureRenderer(storiesSnapshot()).render(r, QString::fromStdString(path), format);
    return path;
}

// Text of every <text> element (and nested <tspan>s) of an SVG; fails the test when the XML is malformed.
QSet<QString> svgTexts(const QByteArray& svg, int* images)
{
    QSet<QString> texts;
    QXmlStreamReader xml(svg);
    *images = 0;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("image")) ++*images;
        if (xml.isStartElement() && xml.name() == QLatin1String("text"))
            texts.insert(xml.readElementText(QXmlStreamReader::IncludeChildElements));
    }
    EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString() << " at line " << xml.lineNumber();
    return texts;
}

TEST(FigureExport, HeatmapSvgIsWellFormedWithTokenLabelsAndVectorCells)
{
    const SnapshotPtr& s = storiesSnapshot();
    ASSERT_GE(s->numKeys(), 8);
    ASSERT_LE(s->numKeys(), 40); // every token gets a label at this size
    const std::string path = render(storiesRecipe(FigureView::Heatmap), "heatmap.svg", FigureFormat::Svg);
    int images = -1;
    const QSet<QString> texts = svgTexts(readAll(path), &images);
    for (const TokenChip& token : s->tokens())
        EXPECT_TRUE(texts.contains(elidedToken(token, 14))) << "no label " << elidedToken(token, 14).toStdString();
    EXPECT_TRUE(texts.contains("Layer 2 · Head 3  (KV head 1)")); // stories260K: 8 query heads on 4 KV heads
    EXPECT_TRUE(texts.contains("key"));
    EXPECT_TRUE(texts.contains("weight")); // the colour bar's label
    // A small matrix is drawn as vector cells: the only bitmap left is the colour bar's gradient strip.
    EXPECT_EQ(images, 1);
}

// One head of n tokens, each query's weight spread evenly over the keys it sees.
SnapshotPtr evenCausalSnapshot(int64_t n)
{
    std::vector<float> p(static_cast<size_t>(n * n), 0.0f);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j <= i; ++j)
            p[static_cast<size_t>(i * n + j)] = 1.0f / static_cast<float>(i + 1);
    std::vector<TokenChip> tokens;
    for (int64_t i = 0; i < n; ++i)
        tokens.push_back({ "t" + std::to_string(i), i, false });
    MaskSpec mask;
    mask.causal = true;
    return std::make_shared<const AttentionSnapshot>(tokens, std::vector<Tensor> { Tensor({ 1, n, n }, p) }, 0, mask);
}

TEST(FigureExport, LargeHeatmapEmbedsTheCellRaster)
{
    const SnapshotPtr big = evenCausalSnapshot(kVectorCellLimit + 44);
    const std::string dir = test::makeTempDir("ui-export-big");
    FigureRecipe r;
    r.view = FigureView::Heatmap;
    FigureRenderer(big).render(r, QString::fromStdString(dir + "/big.svg"), FigureFormat::Svg);
    const QByteArray svg = readAll(dir + "/big.svg");
    int images = 0;
    svgTexts(svg, &images);
    EXPECT_EQ(images, 2); // the cells and the colour bar
    EXPECT_LT(svg.size(), 2 << 20); // one image instead of 90,000 rectangles
}

// Issue 22: recording a figure on the GUI thread leaves the colour map's raster unencoded for the writing thread (a
// QPicture PNG-encodes every image drawn on it: 50-100 ms of a 512-token export), and the written files still hold
// it: the map's pixels in the PNG, one image for it in the SVG.
TEST(FigureExport, RecordingKeepsTheColourMapRasterOutOfThePictureForTheWriter)
{
    const int64_t n = 400;
    const SnapshotPtr big = evenCausalSnapshot(n);
    const std::string dir = test::makeTempDir("ui-export-deferred");
    FigureRecipe r;
    r.view = FigureView::Heatmap;
    const QString png = QString::fromStdString(dir + "/big.png"), svg = QString::fromStdString(dir + "/big.svg");
    const RecordedFigure raster = FigureRenderer(big).record(r, png, FigureFormat::Png);
    ASSERT_EQ(raster.images.size(), 1u);
    EXPECT_EQ(raster.images.front().image.size(), QSize(n, n)); // the map, a pixel per cell
    // What is left to encode is the axes, labels and colour bar: far less than the 400 x 400 map in PNG.
    EXPECT_LT(raster.picture.size() + raster.above.size(), 40000u);
    ASSERT_TRUE(writeFigure(raster, png));
    const QImage image(png);
    ASSERT_FALSE(image.isNull());
    // The first query sees only key 0 at weight 1, the map's brightest colour: the plot's top-left cell.
    const QColor brightest = colormapColor(Colormap::Viridis, 1.0);
    bool found = false;
    for (int y = 0; y < image.height() / 3 && !found; ++y)
        for (int x = 0; x < image.width() / 3 && !found; ++x)
            found = image.pixelColor(x, y) == brightest;
    EXPECT_TRUE(found) << "no map pixel in the written PNG";

    const RecordedFigure vector = FigureRenderer(big).record(r, svg, FigureFormat::Svg);
    ASSERT_EQ(vector.images.size(), 1u); // QCustomPlot's fine raster of the map, drawn as one image
    ASSERT_TRUE(writeFigure(vector, svg));
    int images = 0;
    svgTexts(readAll(svg.toStdString()), &images);
    EXPECT_EQ(images, 2); // the map and the colour bar
}

TEST(FigureExport, PdfHasAValidHeaderAndTheRequestedPageSize)
{
    FigureRecipe r = storiesRecipe(FigureView::Heatmap);
    r.width = 640;
    r.height = 520;
    const QByteArray pdf = readAll(render(r, "heatmap.pdf", FigureFormat::Pdf));
    ASSERT_TRUE(pdf.startsWith("%PDF-1.")) << pdf.left(16).toStdString();
    EXPECT_TRUE(pdf.trimmed().endsWith("%%EOF"));
    const QRegularExpression box(R"(/MediaBox\s*\[\s*0\s+0\s+([0-9.]+)\s+([0-9.]+)\s*\])");
    const auto match = box.match(QString::fromLatin1(pdf));
    ASSERT_TRUE(match.hasMatch());
    // 640 x 520 logical pixels at 96 per inch = 480 x 390 points.
    EXPECT_NEAR(match.captured(1).toDouble(), 480.0, 0.01);
    EXPECT_NEAR(match.captured(2).toDouble(), 390.0, 0.01);
}

TEST(FigureExport, PngHasTheRequestedPixelSizeAndDpi)
{
    FigureRecipe r = storiesRecipe(FigureView::Heatmap);
    r.width = 500;
    r.height = 400;
    r.dpi = 192;
    QImage image;
    ASSERT_TRUE(image.load(QString::fromStdString(render(r, "heatmap.png", FigureFormat::Png))));
    EXPECT_EQ(image.size(), QSize(1000, 800));
    EXPECT_NEAR(image.dotsPerMeterX() * 0.0254, 192.0, 0.5);
}

TEST(FigureExport, EveryViewRendersTwiceToByteIdenticalPngs)
{
    for (FigureView view : { FigureView::Heatmap, FigureView::Grid, FigureView::HeadView, FigureView::Stats }) {
        FigureRecipe r = storiesRecipe(view);
        r.heads = { 1, 3 };
        const std::string name = figureViewName(view);
        const QByteArray a = readAll(render(r, name + "-a.png", FigureFormat::Png));
        const QByteArray b = readAll(render(r, name + "-b.png", FigureFormat::Png));
        EXPECT_GT(a.size(), 1000) << name;
        EXPECT_EQ(a, b) << name;
        QImage image;
        ASSERT_TRUE(image.loadFromData(a)) << name;
        EXPECT_EQ(image.size(), FigureRenderer(storiesSnapshot()).figureSize(r)) << name;
        // Not blank: a figure has many colours.
        QSet<QRgb> colors;
        for (int y = 0; y < image.height(); y += 3)
            for (int x = 0; x < image.width(); x += 3)
                colors.insert(image.pixel(x, y));
        EXPECT_GT(colors.size(), 20) << name;
    }
}

// Issue 22: the grid's thumbnails are built and drawn where the figure is written (the Export menu's worker). Recorded
// on the GUI thread they went into the figure's QPicture, which PNG-encodes every image drawn on it: most of a grid
// export's 40-66 ms of GUI-thread time for a 12 x 12 model. The written figure still shows each head's thumbnail.
TEST(FigureExport, TheGridsThumbnailsAreDrawnWhereTheFigureIsWrittenNotRecorded)
{
    const std::string dir = test::makeTempDir("ui-export-grid");
    const QString path = QString::fromStdString(dir + "/grid.png");
    const FigureRecipe r = storiesRecipe(FigureView::Grid);
    const FigureRenderer renderer(storiesSnapshot());
    const RecordedFigure figure = renderer.record(r, path, FigureFormat::Png);
    ASSERT_TRUE(figure.overlay) << "the cells are left to the writing thread";
    const QSize size = renderer.figureSize(r);
    ImageCapture recorded(size);
    {
        QPainter painter(&recorded);
        painter.drawPicture(0, 0, figure.picture);
    }
    EXPECT_TRUE(recorded.take().empty()) << "the recording holds no thumbnail";
    ASSERT_TRUE(writeFigure(figure, path));
    QImage written;
    ASSERT_TRUE(written.load(path));
    ASSERT_EQ(written.size(), size);
    HeadGridView grid; // where each cell is at the figure's width
    grid.setSnapshot(storiesSnapshot());
    grid.resize(size);
    const SnapshotPtr& s = storiesSnapshot();
    for (int64_t l = 0; l < s->numLayers(); ++l)
        for (int64_t h = 0; h < s->numHeads(); ++h) {
            const QImage thumbnail = HeadGridView::renderThumbnail(*s, l, h, r.colormap);
            const QRect cell = grid.thumbnailRect(l, h);
            // The texel a third of the way in on both axes (above the role tag), at its centre.
            const int tx = thumbnail.width() / 3, ty = thumbnail.height() / 3;
            const int x = cell.left() + static_cast<int>((tx + 0.5) * cell.width() / thumbnail.width());
            const int y = cell.top() + static_cast<int>((ty + 0.5) * cell.height() / thumbnail.height());
            EXPECT_EQ(QColor(written.pixel(x, y)), thumbnail.pixelColor(tx, ty)) << "L" << l << ".H" << h;
        }
}

TEST(FigureExport, WidgetViewsKeepTheirTextAsVectors)
{
    for (FigureView view : { FigureView::Grid, FigureView::HeadView, FigureView::Stats }) {
        const std::string path = render(storiesRecipe(view), figureViewName(view) + ".svg", FigureFormat::Svg);
        int images = 0;
        const QSet<QString> texts = svgTexts(readAll(path), &images);
        if (view == FigureView::HeadView)
            for (const TokenChip& token : storiesSnapshot()->tokens())
                EXPECT_TRUE(texts.contains(displayToken(token))) << displayToken(token).toStdString();
        else
            EXPECT_TRUE(texts.contains(view == FigureView::Grid ? "L4" : "layer")) << figureViewName(view);
    }
}

TEST(FigureExport, RejectsHeadsOutsideTheModelAndTheDecodeView)
{
    FigureRecipe r = storiesRecipe(FigureView::Heatmap);
    r.head = storiesSnapshot()->numHeads();
    EXPECT_THROW(render(r, "bad.png", FigureFormat::Png), Error);
    r.head = 0;
    r.layer = -1;
    EXPECT_THROW(render(r, "bad.png", FigureFormat::Png), Error);
    EXPECT_THROW(render(storiesRecipe(FigureView::Decode), "bad.png", FigureFormat::Png), Error)
        << "the decode view is not an attention snapshot (renderDecodeFigure draws it)";
    EXPECT_THROW(figureFormatFromPath("figure.jpg"), Error);
}

// Loads an .npy with NumPy and returns "dtype shape" and the values as Python prints float32 -> float (exact).
std::string numpyDump(const std::string& path, std::vector<double>* values)
{
    std::string out;
    const int rc
        = test::runCommand("/usr/bin/python3 -c \"import numpy as np, sys; a = np.load(sys.argv[1]); "
                           "print(a.dtype, list(a.shape)); print(' '.join(repr(float(x)) for x in a.ravel()))\" '"
                + path + "'",
            &out);
    EXPECT_EQ(rc, 0) << out;
    std::istringstream in(out);
    std::string header;
    std::getline(in, header);
    for (double v; in >> v;)
        values->push_back(v);
    return header;
}

TEST(FigureData, NpyLoadsInNumpyAndEqualsTheEngineData)
{
    const SnapshotPtr& s = storiesSnapshot();
    const std::string dir = test::makeTempDir("ui-export-npy");
    const int64_t q = s->numQueries(), k = s->numKeys();

    FigureRecipe heatmap = storiesRecipe(FigureView::Heatmap);
    writeFigureNpy(dir + "/head.npy", *s, heatmap);
    std::vector<double> values;
    EXPECT_EQ(numpyDump(dir + "/head.npy", &values), "float32 [" + std::to_string(q) + ", " + std::to_string(k) + "]");
    ASSERT_EQ(static_cast<int64_t>(values.size()), q * k);
    const float* p = s->head(2, 3);
    for (int64_t i = 0; i < q * k; ++i)
        ASSERT_EQ(static_cast<float>(values[static_cast<size_t>(i)]), p[i]) << i;

    writeFigureNpy(dir + "/all.npy", *s, storiesRecipe(FigureView::Grid));
    values.clear();
    EXPECT_EQ(numpyDump(dir + "/all.npy", &values),
        "float32 [" + std::to_string(s->numLayers()) + ", " + std::to_string(s->numHeads()) + ", " + std::to_string(q)
            + ", " + std::to_string(k) + "]");
    ASSERT_EQ(static_cast<int64_t>(values.size()), s->numLayers() * s->numHeads() * q * k);
    for (int64_t l = 0; l < s->numLayers(); ++l)
        for (int64_t i = 0; i < s->numHeads() * q * k; ++i)
            ASSERT_EQ(
                static_cast<float>(values[static_cast<size_t>(l * s->numHeads() * q * k + i)]), s->layer(l).data()[i]);

    writeFigureNpy(dir + "/stats.npy", *s, storiesRecipe(FigureView::Stats));
    values.clear();
    numpyDump(dir + "/stats.npy", &values);
    ASSERT_EQ(static_cast<int64_t>(values.size()), s->numLayers() * s->numHeads() * StatsView::MetricCount);
    EXPECT_EQ(static_cast<float>(values[StatsView::SinkMass]), static_cast<float>(s->stats(0, 0).sinkMass));
}

TEST(FigureData, CsvHeatmapHasTokenHeaderAndOneRowPerQuery)
{
    const SnapshotPtr& s = storiesSnapshot();
    const std::string dir = test::makeTempDir("ui-export-csv");
    writeFigureCsv(dir + "/head.csv", *s, storiesRecipe(FigureView::Heatmap));
    std::ifstream in(dir + "/head.csv");
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(in, line))
        lines.push_back(line);
    ASSERT_EQ(static_cast<int64_t>(lines.size()), s->numQueries() + 1);
    EXPECT_EQ(lines[0].rfind("query\\key,0:", 0), 0u); // columns and rows are labelled "position:token"
    EXPECT_EQ(lines[2].rfind("1:", 0), 0u);
    // Row 1 (query 1) of a causal head: two visible keys summing to 1, the rest 0.
    std::istringstream row(lines[2]);
    std::string cell;
    std::getline(row, cell, ',');
    double sum = 0;
    int count = 0;
    while (std::getline(row, cell, ',')) {
        sum += std::stod(cell);
        ++count;
    }
    EXPECT_EQ(count, s->numKeys());
    EXPECT_NEAR(sum, 1.0, 1e-6);
}

TEST(FigureRecipeJson, RoundTripsAndRejectsUnknownKeys)
{
    FigureRecipe r = storiesRecipe(FigureView::HeadView);
    r.heads = { 0, 5 };
    r.selectedToken = 2;
    r.colormap = Colormap::Magma;
    r.options.scale = ScaleMode::Log;
    r.options.excludeFirstToken = true;
    r.metric = StatsView::PreviousToken;
    r.width = 900;
    r.dpi = 300;
    const FigureRecipe back = recipeFromJson(recipeToJson(r), "test");
    EXPECT_EQ(recipeToJson(back), recipeToJson(r));
    EXPECT_EQ(back.heads, r.heads);
    EXPECT_EQ(back.options.scale, ScaleMode::Log);
    EXPECT_EQ(back.metric, StatsView::PreviousToken);
    EXPECT_THROW(recipeFromJson(R"({"view": "heatmap", "colour": "red"})", "test"), Error);
    EXPECT_THROW(recipeFromJson(R"({"view": "pie"})", "test"), Error);
    EXPECT_THROW(recipeFromJson(R"({"layer": "one"})", "test"), Error);
    EXPECT_THROW(recipeFromJson("{", "test"), Error);
}

// The CLI runs with no display and no QT_QPA_PLATFORM: the export command picks the offscreen platform itself.
int runCliHeadless(const std::string& arguments, std::string* output)
{
    return test::runCommand(
        "env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM '" + test::cliPath() + "' export " + arguments, output);
}

TEST(ExportCli, HeadlessFiguresRecipesAndDataMatchTheEngine)
{
    const std::string dir = test::makeTempDir("ui-export-cli");
    const std::string model = test::sharedPath("models/stories260K/stories260K.bin");
    const std::string common = "'" + model + "' --prompt '" + kPrompt + "' --view heatmap --layer 1 --head 4 ";
    std::string out;
    ASSERT_EQ(
        runCliHeadless(common + "--format png --width 420 --height 360 --dpi 144 --out " + dir + "/a.png", &out), 0)
        << out;
    QImage image;
    ASSERT_TRUE(image.load(QString::fromStdString(dir + "/a.png")));
    EXPECT_EQ(image.size(), QSize(630, 540));
    for (const char* format : { "svg", "pdf" }) {
        ASSERT_EQ(runCliHeadless(common + "--format " + format + " --out " + dir + "/a." + format, &out), 0) << out;
        EXPECT_GT(readAll(dir + "/a." + format).size(), 1000);
    }
    // The recipe reproduces the figure byte for byte.
    ASSERT_EQ(
        runCliHeadless(common + "--width 420 --height 360 --dpi 144 --format json --out " + dir + "/r.json", &out), 0)
        << out;
    ASSERT_EQ(runCliHeadless("--recipe " + dir + "/r.json --format png --out " + dir + "/b.png", &out), 0) << out;
    EXPECT_EQ(readAll(dir + "/a.png"), readAll(dir + "/b.png"));

    // .npy of the head equals head 4 of `attnscope-cli attention`'s layer 1 file.
    ASSERT_EQ(runCliHeadless(common + "--format npy --out " + dir + "/h.npy", &out), 0) << out;
    ASSERT_EQ(test::runCommand("'" + test::cliPath() + "' attention '" + model + "' --prompt '" + kPrompt
                      + "' --backend cpu --out " + dir + "/attn",
                  &out),
        0)
        << out;
    EXPECT_EQ(test::runCommand("/usr/bin/python3 -c \"import numpy as np, sys; a = np.load(sys.argv[1]); "
                               "b = np.load(sys.argv[2])[4]; assert a.dtype == np.float32 and a.shape == b.shape, "
                               "(a.dtype, a.shape, b.shape); assert np.array_equal(a, b)\" "
                      + dir + "/h.npy " + dir + "/attn/attn.L1.npy",
                  &out),
        0)
        << out;

    // The decode view: next-token probabilities after the prompt, as a figure at the requested size.
    const std::string decode = "'" + model + "' --prompt '" + kPrompt + "' --view decode ";
    ASSERT_EQ(runCliHeadless(decode + "--format png --dpi 192 --out " + dir + "/d.png", &out), 0) << out;
    ASSERT_TRUE(image.load(QString::fromStdString(dir + "/d.png")));
    EXPECT_EQ(image.size(), QSize(840, 720));
    ASSERT_EQ(runCliHeadless(decode + "--format svg --out " + dir + "/d.svg", &out), 0) << out;
    const QByteArray svg = readAll(dir + "/d.svg");
    EXPECT_TRUE(svg.startsWith("<?xml") && svg.trimmed().endsWith("</svg>"));
    EXPECT_TRUE(svg.contains(">probability<")) << "axis text stays vector text";
    // Its highlighted bar is the token `generate` picks greedily next (the last word generate adds to the prompt).
    // Only generate's stdout (its text); run.c's "achieved tok/s" goes to stderr.
    ASSERT_EQ(test::runCommand("('" + test::cliPath() + "' generate '" + model + "' --prompt '" + kPrompt
                      + "' --max-new-tokens 1 2>/dev/null)",
                  &out),
        0);
    const size_t after = out.find(kPrompt) + std::string(kPrompt).size() + 1;
    const std::string nextWord = out.substr(after, out.find_first_of(" \n", after) - after);
    ASSERT_FALSE(nextWord.empty()) << out;
    EXPECT_TRUE(svg.contains(QByteArray::fromStdString(nextWord + "<"))) << nextWord;
    EXPECT_EQ(runCliHeadless(decode + "--format npy --out " + dir + "/d.npy", &out), 2) << out;

    EXPECT_NE(runCliHeadless(common + "--head 99 --format png --out " + dir + "/bad.png", &out), 0);
    EXPECT_NE(out.find("no head 1.99"), std::string::npos) << out;
}

// The window with stories260K open and the prompt run.
void showStories(MainWindow& window)
{
    window.show();
    QSignalSpy shown(&window, &MainWindow::snapshotShown);
    window.openModel(QString::fromStdString(test::sharedPath("models/stories260K/stories260K.bin")));
    QTRY_VERIFY_WITH_TIMEOUT(window.summary() != nullptr || !window.lastError().isEmpty(), 30000);
    window.setInputText(kPrompt);
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() >= 1 || !window.lastError().isEmpty(), 30000);
    ASSERT_TRUE(window.lastError().isEmpty()) << window.lastError().toStdString();
}

TEST(ExportMenu, GuiExportsEqualTheirRecipeRenderedOffscreen)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(showStories(window));
    window.setCurrentHead(3, 5);
    auto* menu = window.findChild<ExportMenu*>("exportMenu");
    ASSERT_NE(menu, nullptr);
    const std::string dir = test::makeTempDir("ui-export-menu");
    // The four views a recipe reproduces (the model view's tab exports as a picture of the widget).
    const std::vector<QWidget*> views { window.heatmapView(), window.linesView(), window.gridView(),
        window.statsView() };
    for (QWidget* view : views) {
        for (int i = 0; i < window.tabs()->count(); ++i)
            if (window.tabs()->widget(i) == view || window.tabs()->widget(i)->isAncestorOf(view))
                window.tabs()->setCurrentIndex(i);
        FigureRecipe recipe;
        ASSERT_TRUE(menu->currentRecipe(&recipe)) << view->objectName().toStdString();
        EXPECT_EQ(recipe.layer, 3);
        EXPECT_EQ(recipe.head, 5);
        EXPECT_EQ(recipe.text, kPrompt); // beside the ids, for people reading the recipe
        EXPECT_EQ(menu->suggestedBaseName().toStdString(), "stories260K_" + figureViewName(recipe.view) + "_L3H5");
        const std::string base = dir + "/" + figureViewName(recipe.view);
        menu->exportFigure(QString::fromStdString(base + ".png"), 120);
        menu->exportRecipe(QString::fromStdString(base + ".json"));
        menu->exportData(QString::fromStdString(base + ".npy"));
        // The saved recipe (input as ids) recomputes the same attention and the same pixels.
        FigureRecipe saved = readRecipeFile(base + ".json");
        EXPECT_EQ(saved.text, kPrompt);
        saved.dpi = 120;
        const SnapshotPtr again = computeRecipeSnapshot(saved);
        FigureRenderer(again).render(saved, QString::fromStdString(base + "-recipe.png"), FigureFormat::Png);
        EXPECT_EQ(readAll(base + ".png"), readAll(base + "-recipe.png")) << figureViewName(recipe.view);
        EXPECT_EQ(figureData(*again, saved).numel(), figureData(*window.snapshot(), recipe).numel());
    }
}

// The export dialogs open in the folder of the last export (also in the next window: it is a setting) and offer
// "<model>_<view>_L<layer>H<head>" with the format's extension.
TEST(ExportMenu, TheDialogOffersTheLastFolderAndANameFromModelViewLayerAndHead)
{
    QSettings().remove("export/folder");
    const QString folder = QFileInfo(QString::fromStdString(test::makeTempDir("ui-export-folder"))).canonicalFilePath();
    {
        MainWindow window;
        ASSERT_NO_FATAL_FAILURE(showStories(window));
        window.setCurrentHead(2, 4);
        window.tabs()->setCurrentWidget(window.heatmapView());
        auto* recipe = window.findChild<QAction*>("actionExportRecipe");
        ASSERT_NE(recipe, nullptr);
        test::OfferedFile offered;
        test::answerNextFileDialog(&offered, folder + "/chosen.json");
        recipe->trigger();
        EXPECT_EQ(offered.folder, QFileInfo(QDir::currentPath()).canonicalFilePath()); // no export yet
        EXPECT_EQ(offered.name, "stories260K_heatmap_L2H4.json");
        EXPECT_TRUE(QFileInfo::exists(folder + "/chosen.json"));

        window.setCurrentHead(1, 3);
        for (int i = 0; i < window.tabs()->count(); ++i)
            if (window.tabs()->widget(i)->isAncestorOf(window.linesView())) window.tabs()->setCurrentIndex(i);
        test::answerNextFileDialog(&offered, {}); // cancelled: nothing written, the folder stays
        window.findChild<QAction*>("actionExportData")->trigger();
        EXPECT_EQ(offered.folder, folder);
        EXPECT_EQ(offered.name.toStdString(), "stories260K_" + figureViewName(FigureView::HeadView) + "_L1H3.npy");
    }
    MainWindow next; // the next start
    ASSERT_NO_FATAL_FAILURE(showStories(next));
    next.tabs()->setCurrentWidget(next.statsView());
    test::OfferedFile offered;
    test::answerNextFileDialog(&offered, {});
    next.findChild<QAction*>("actionExportFigure")->trigger();
    EXPECT_EQ(offered.folder, folder);
    EXPECT_EQ(offered.name.toStdString(), "stories260K_" + figureViewName(FigureView::Stats) + "_L0H0.png");
}

// Issue 22: the menu's exports write on a worker (the call returns after recording), report through exportFinished(),
// and give the same files as the synchronous calls; a cancelled export leaves no file.
TEST(ExportMenu, StartedExportsWriteOnAWorkerAndEqualTheSynchronousOnes)
{
    MainWindow window;
    ASSERT_NO_FATAL_FAILURE(showStories(window));
    auto* menu = window.findChild<ExportMenu*>("exportMenu");
    ASSERT_NE(menu, nullptr);
    const std::string dir = test::makeTempDir("ui-export-async");
    // The synchronous files under the same names (an SVG's title is its file name) in another folder.
    const std::string syncDir = test::makeTempDir("ui-export-sync");
    QSignalSpy finished(menu, &ExportMenu::exportFinished);
    const auto started = [&](const std::function<void()>& start) {
        const qsizetype before = finished.count();
        start();
        [&] { QTRY_VERIFY_WITH_TIMEOUT(finished.count() > before, 60000); }();
        return finished.last();
    };
    for (QWidget* view : std::vector<QWidget*> { window.heatmapView(), window.linesView(), window.gridView() }) {
        for (int i = 0; i < window.tabs()->count(); ++i)
            if (window.tabs()->widget(i) == view || window.tabs()->widget(i)->isAncestorOf(view))
                window.tabs()->setCurrentIndex(i);
        const QString name = "/view" + QString::number(window.tabs()->currentIndex());
        const QString base = QString::fromStdString(dir) + name, sync = QString::fromStdString(syncDir) + name;
        for (const char* format : { ".png", ".svg", ".pdf" }) {
            menu->exportFigure(sync + format, 96);
            const QList<QVariant> outcome = started([&] { menu->startFigureExport(base + format, 96); });
            EXPECT_EQ(outcome.at(0).toString(), base + format);
            EXPECT_EQ(outcome.at(1).toString().toStdString(), "");
            EXPECT_FALSE(outcome.at(2).toBool());
            if (QString(format) != ".pdf") { // a PDF names its creation time
                EXPECT_EQ(readAll((base + format).toStdString()), readAll((sync + format).toStdString()))
                    << base.toStdString() << format;
            } else {
                EXPECT_GT(readAll((base + format).toStdString()).size(), 1000);
            }
        }
        menu->exportData(sync + ".npy");
        started([&] { menu->startDataExport(base + ".npy"); });
        EXPECT_EQ(readAll((base + ".npy").toStdString()), readAll((sync + ".npy").toStdString()));
    }
    // Cancelled at once: either it stopped (no file) or it had already written the whole file.
    const QString cancelled = QString::fromStdString(dir + "/cancelled.png");
    const QList<QVariant> outcome = started([&] {
        menu->startFigureExport(cancelled, 300);
        menu->cancelExport();
    });
    EXPECT_EQ(outcome.at(2).toBool(), !QFile::exists(cancelled));
    EXPECT_EQ(outcome.at(1).toString().toStdString(), "");
}

} // namespace
} // namespace attn::ui
