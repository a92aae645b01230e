// SPDX-License-Identifier: MIT
#pragma once
// The one way any view becomes a file: PNG at a chosen DPI, or SVG / PDF with vector text. Every view (and any future
// one, e.g. the decode panel) exports through exportWidget().
#include <QSize>
#include <QString>

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

/// Pixel size of a PNG export of `size` (rounded).
QSize pngPixelSize(const FigureSize& size);

/// Colour maps with more cells than this along either axis are embedded as one raster image in SVG/PDF;
/// smaller ones become vector rectangles (crisp at any zoom, still small files).
constexpr int kVectorCellLimit = 256;
/// A panel that is not one of the recipe views marks the widget its figure export draws (its maps, its matrix: not
/// its controls) with this object name.
inline constexpr const char* kFigureObjectName = "exportFigure";

/// Writes `widget` to `path` at `size` (a widget other than a plot is resized for the export, then put back). A
/// QCustomPlot is drawn through its vector path (text, axes and colour bar stay vectors); any other widget through
/// QWidget::render, which keeps the QPainter calls of its paintEvent (text and shapes) as vectors. Pass the QCustomPlot
/// itself for plot views: a container's render() would only embed the plot's screen buffer. Throws Error when the file
/// cannot be written.
void exportWidget(QWidget& widget, const QString& path, FigureFormat format, const FigureSize& size);

} // namespace attn::ui
