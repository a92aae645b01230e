// SPDX-License-Identifier: MIT
#include "export/figure_export.h"

#include "core/error.h"
#include "export/color_map_cells.h"

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPageSize>
#include <QPdfWriter>
#include <QScopeGuard>
#include <QSvgGenerator>
#include <QWidget>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <vector>

namespace attn::ui {

namespace {

constexpr double kLogicalDpi = 96.0;

std::string describe(const QString& path)
{
    return path.toStdString();
}

// Small colour maps become vector cells for the duration of one vector export.
class VectorCellsScope {
public:
    explicit VectorCellsScope(QCustomPlot& plot)
    {
        for (int i = 0; i < plot.plottableCount(); ++i) {
            auto* map = qobject_cast<QCPColorMap*>(plot.plottable(i));
            if (!map || !map->visible() || map->data()->keySize() > kVectorCellLimit
                || map->data()->valueSize() > kVectorCellLimit)
                continue;
            map->setVisible(false);
            m_hidden.push_back(map);
            m_cells.push_back(std::make_unique<ColorMapCells>(map));
        }
    }
    ~VectorCellsScope()
    {
        m_cells.clear();
        for (QCPColorMap* map : m_hidden)
            map->setVisible(true);
    }

private:
    std::vector<QCPColorMap*> m_hidden;
    std::vector<std::unique_ptr<ColorMapCells>> m_cells;
};

// Lets a recording draw one layerable itself onto another device, as its layer would (QCPLayer::draw).
struct LayerableAccess : QCPLayerable {
    using QCPLayerable::applyDefaultAntialiasingHint;
    using QCPLayerable::clipRect;
    using QCPLayerable::draw;
};

void drawLayerable(QCPLayerable& layerable, QCPPainter& painter)
{
    painter.save();
    painter.setClipRect((layerable.*&LayerableAccess::clipRect)().translated(0, -1));
    (layerable.*&LayerableAccess::applyDefaultAntialiasingHint)(&painter);
    (layerable.*&LayerableAccess::draw)(&painter);
    painter.restore();
}

// What QCustomPlot::toPainter() does, split where the colour maps are drawn.
struct PlotAccess : QCustomPlot {
    using QCustomPlot::drawBackground;
    using QCustomPlot::mBackgroundBrush;
    using QCustomPlot::updateLayout;
};

// Records a plot whose colour maps are drawn as rasters (all of them in a PNG; the large ones in SVG/PDF) without
// encoding them: what is drawn before them goes into `figure.picture` (through `painter`), their images into
// `figure.images`, what is drawn after them (on their own layer too: bands, marks, outlines) into `figure.above`, so the
// figure keeps the plot's drawing order. False (nothing drawn) when the plot has no such map, or draws anything between
// two of them.
bool recordAroundMaps(QCustomPlot& plot, QCPPainter& painter, RecordedFigure& figure, const QString& path)
{
    std::vector<QCPLayerable*> order; // every visible layerable, in the order QCustomPlot::draw() paints them
    for (int i = 0; i < plot.layerCount(); ++i)
        for (QCPLayerable* child : plot.layer(i)->children())
            if (child->realVisibility()) order.push_back(child);
    const auto isMap = [](QCPLayerable* layerable) { return qobject_cast<QCPColorMap*>(layerable) != nullptr; };
    const auto first = std::find_if(order.begin(), order.end(), isMap);
    if (first == order.end()) return false;
    const auto last = std::find_if(order.rbegin(), order.rend(), isMap).base(); // one past the last map
    if (!std::all_of(first, last, isMap)) return false;
    const QSize size = figure.size.logical;
    const QRect viewport = plot.viewport();
    plot.setViewport(QRect(QPoint(0, 0), size));
    (plot.*&PlotAccess::updateLayout)();
    const QBrush& background = plot.*&PlotAccess::mBackgroundBrush;
    if (background.style() != Qt::NoBrush) painter.fillRect(plot.viewport(), background);
    (plot.*&PlotAccess::drawBackground)(&painter);
    const auto draw = [](QCPPainter& onto, auto from, auto to) {
        for (auto it = from; it != to; ++it)
            drawLayerable(**it, onto);
    };
    draw(painter, order.begin(), first);
    {
        ImageCapture capture(size);
        QCPPainter images(&capture);
        images.setModes(painter.modes());
        images.setRenderHints(painter.renderHints());
        draw(images, first, last);
        images.end();
        figure.images = capture.take();
    }
    QCPPainter above;
    if (!above.begin(&figure.above)) throw Error("export " + describe(path) + ": cannot record the figure");
    above.setModes(painter.modes());
    above.setRenderHints(painter.renderHints());
    draw(above, last, order.end());
    above.end();
    plot.setViewport(viewport);
    return true;
}

// Draws the widget at the logical size onto `painter` (whose device is `figure.picture`).
void paintWidget(QWidget& widget, QCPPainter& painter, RecordedFigure& figure, bool vector, const QString& path)
{
    const QSize size = figure.size.logical;
    if (auto* plot = qobject_cast<QCustomPlot*>(&widget)) {
        painter.setMode(QCPPainter::pmNoCaching); // text as text, never cached pixmaps
        if (vector) painter.setMode(QCPPainter::pmVectorized);
        {
            std::optional<VectorCellsScope> cells;
            if (vector) cells.emplace(*plot);
            if (!recordAroundMaps(*plot, painter, figure, path)) plot->toPainter(&painter, size.width(), size.height());
        }
        // toPainter() left the layout at the export size; an on-screen plot lays itself out again.
        plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    widget.render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
}

void checkWritable(const QString& path)
{
    const QFileInfo info(path);
    if (!info.absoluteDir().exists())
        throw Error(
            "export " + describe(path) + ": the folder " + info.absolutePath().toStdString() + " does not exist");
}

} // namespace

FigureFormat figureFormatFromName(const QString& name)
{
    const QString n = name.toLower();
    if (n == "png") return FigureFormat::Png;
    if (n == "svg") return FigureFormat::Svg;
    if (n == "pdf") return FigureFormat::Pdf;
    throw Error("unknown figure format '" + name.toStdString() + "' (expected png, svg or pdf)");
}

FigureFormat figureFormatFromPath(const QString& path)
{
    return figureFormatFromName(QFileInfo(path).suffix());
}

QSize pngPixelSize(const FigureSize& size)
{
    const double scale = size.dpi / kLogicalDpi;
    return QSize(static_cast<int>(std::lround(size.logical.width() * scale)),
        static_cast<int>(std::lround(size.logical.height() * scale)));
}

RecordedFigure recordWidget(QWidget& widget, const QString& path, FigureFormat format, const FigureSize& size)
{
    if (size.logical.width() < 16 || size.logical.height() < 16 || size.logical.width() > kMaxFigureSide
        || size.logical.height() > kMaxFigureSide)
        throw Error("export " + describe(path) + ": figure size " + std::to_string(size.logical.width()) + "x"
            + std::to_string(size.logical.height()) + " is outside 16.." + std::to_string(kMaxFigureSide));
    if (size.dpi < 24 || size.dpi > 2400)
        throw Error("export " + describe(path) + ": dpi " + std::to_string(size.dpi) + " is outside 24..2400");
    checkWritable(path);
    // Plots are laid out at the export size by toPainter(); other widgets are resized for the export and put back.
    const QRect geometry = widget.geometry();
    const bool resize = !qobject_cast<QCustomPlot*>(&widget) && widget.size() != size.logical;
    if (resize) widget.resize(size.logical);
    const auto restore = qScopeGuard([&] {
        if (resize) widget.setGeometry(geometry);
    });
    RecordedFigure figure;
    figure.format = format;
    figure.size = size;
    QCPPainter painter;
    if (!painter.begin(&figure.picture)) throw Error("export " + describe(path) + ": cannot record the figure");
    const bool vector = format != FigureFormat::Png;
    if (!vector) {
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setRenderHint(QPainter::TextAntialiasing);
        // Lines and text grow with the DPI, like on a high-density screen.
        if (pngPixelSize(size) != size.logical) painter.setMode(QCPPainter::pmNonCosmetic);
    }
    paintWidget(widget, painter, figure, vector, path);
    painter.end();
    return figure;
}

bool writeFigure(const RecordedFigure& figure, const QString& path, const ExportCancel& cancelled)
{
    checkWritable(path);
    const QSize logical = figure.size.logical;
    // The picture, then the overlay; false (and no file) when the overlay was cancelled.
    const auto draw = [&](QPainter& painter) {
        painter.drawPicture(0, 0, figure.picture);
        drawDeferred(painter, figure.images);
        if (!figure.above.isNull()) painter.drawPicture(0, 0, figure.above);
        return !figure.overlay || figure.overlay(painter, cancelled);
    };
    switch (figure.format) {
    case FigureFormat::Png: {
        const QSize pixels = pngPixelSize(figure.size);
        QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setRenderHint(QPainter::TextAntialiasing);
            painter.scale(static_cast<double>(pixels.width()) / logical.width(),
                static_cast<double>(pixels.height()) / logical.height());
            if (!draw(painter)) return false;
        }
        // Only now: while painting, the image's DPI would scale point-sized fonts a second time.
        QImage png = image.convertToFormat(QImage::Format_RGB32);
        const int dotsPerMeter = static_cast<int>(std::lround(figure.size.dpi / 0.0254));
        png.setDotsPerMeterX(dotsPerMeter);
        png.setDotsPerMeterY(dotsPerMeter);
        if (cancelled && cancelled()) return false;
        if (!png.save(path, "PNG")) throw Error("export " + describe(path) + ": cannot write the PNG file");
        return true;
    }
    case FigureFormat::Svg: {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(logical);
        svg.setViewBox(QRect(QPoint(0, 0), logical));
        svg.setResolution(static_cast<int>(kLogicalDpi));
        svg.setTitle(QFileInfo(path).completeBaseName());
        svg.setDescription(QStringLiteral("AttnScope figure"));
        QPainter painter;
        if (!painter.begin(&svg)) throw Error("export " + describe(path) + ": cannot write the SVG file");
        const bool done = draw(painter);
        painter.end();
        if (!done) QFile::remove(path);
        return done;
    }
    case FigureFormat::Pdf: {
        bool done = false;
        {
            QPdfWriter pdf(path);
            pdf.setCreator(QStringLiteral("AttnScope"));
            pdf.setTitle(QFileInfo(path).completeBaseName());
            pdf.setResolution(static_cast<int>(kLogicalDpi));
            const QSizeF points(logical.width() * 72.0 / kLogicalDpi, logical.height() * 72.0 / kLogicalDpi);
            pdf.setPageSize(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch));
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
            QPainter painter;
            if (!painter.begin(&pdf)) throw Error("export " + describe(path) + ": cannot write the PDF file");
            done = draw(painter);
            painter.end();
        }
        if (!done) QFile::remove(path);
        return done;
    }
    }
    return false;
}

void exportWidget(QWidget& widget, const QString& path, FigureFormat format, const FigureSize& size)
{
    writeFigure(recordWidget(widget, path, format, size), path);
}

} // namespace attn::ui
