// SPDX-License-Identifier: MIT
#pragma once
// The one way any view becomes a file: PNG at a chosen DPI, or SVG / PDF with vector text. Every view (and any future
// one, e.g. the decode panel) exports through exportWidget().
#include "export/deferred_images.h"

#include <QPicture>
#include <QSize>
#include <QString>

#include <functional>
#include <vector>

class QPainter;
class QWidget;

namespace attn::ui {

enum class FigureFormat { Png, Svg, Pdf };

/// "png", "svg" or "pdf" (case-insensitive); throws Error for anything else.
FigureFormat figureFormatFromName(const QString& name);
/// The format named by the file's extension; throws Error when it is not .png, .svg or .pdf.
FigureFormat figureFormatFromPath(const QString& path);

/// A figure's size in logical pixels (1/96 inch, as on screen) and the PNG resolution.
/// PNG: size * dpi / 96 pixels, with the DPI in its pHYs chunk. PDF: a page of size * 72 / 96 points. SVG: size.
struct FigureSize {
    QSize logical;
    int dpi = 96;
};

/// The longest side, in logical pixels, any figure may have.
constexpr int kMaxFigureSide = 20000;

/// Pixel size of a PNG export of `size` (rounded).
QSize pngPixelSize(const FigureSize& size);

/// Colour maps with more cells than this along either axis are embedded as one raster image in SVG/PDF;
/// smaller ones become vector rectangles (crisp at any zoom, still small files).
constexpr int kVectorCellLimit = 256;
/// A panel that is not one of the recipe views marks the widget its figure export draws (its maps, its matrix: not
/// its controls) with this object name.
inline constexpr const char* kFigureObjectName = "exportFigure";

/// True when a figure being written should stop (the user cancelled the export).
using ExportCancel = std::function<bool()>;

/// A figure recorded on the GUI thread (widgets live there) and rasterized, encoded and written on any thread: the
/// Export menu records it, which is quick, and leaves the slow part to a worker so the window never waits for it.
struct RecordedFigure {
    QPicture picture; ///< the widget's drawing in logical pixels
    /// A plot's colour maps, drawn after `picture` and before `above` (kept unencoded: see deferred_images.h).
    std::vector<DeferredImage> images;
    QPicture above; ///< the plot's layers above its colour maps (axes, ticks, bands); empty for other widgets
    FigureFormat format = FigureFormat::Png;
    FigureSize size;
    /// Drawn after the picture on the writing thread, in the same coordinates (the head view's lines: the bulk of
    /// its drawing); returns false once `cancelled` says so.
    std::function<bool(QPainter&, const ExportCancel& cancelled)> overlay;
};

/// Records `widget` at `size` for `format`, to be written to `path` (see exportWidget()); throws Error for a size or
/// DPI out of range or a folder that does not exist.
RecordedFigure recordWidget(QWidget& widget, const QString& path, FigureFormat format, const FigureSize& size);
/// Writes a recorded figure to `path` (any thread); false when cancelled (no file is left). Throws Error when the
/// file cannot be written.
bool writeFigure(const RecordedFigure& figure, const QString& path, const ExportCancel& cancelled = {});

/// Writes `widget` to `path` at `size` (a widget other than a plot is resized for the export, then put back). A
/// QCustomPlot is drawn through its vector path (text, axes and colour bar stay vectors); any other widget through
/// QWidget::render, which keeps the QPainter calls of its paintEvent (text and shapes) as vectors. Pass the QCustomPlot
/// itself for plot views: a container's render() would only embed the plot's screen buffer. Throws Error when the file
/// cannot be written. recordWidget() then writeFigure().
void exportWidget(QWidget& widget, const QString& path, FigureFormat format, const FigureSize& size);

} // namespace attn::ui
