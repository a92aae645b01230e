// SPDX-License-Identifier: MIT
#pragma once
// Only for .cpp files that already include qcustomplot.h.
#include <qcustomplot.h>

namespace attn::ui {

/// Draws the cells of a QCPColorMap as vector rectangles (one filled path per colour, equal neighbours merged), for
/// SVG/PDF exports where QCPColorMap itself would embed a bitmap. Lives on the colour map's layer, just above it.
class ColorMapCells : public QCPLayerable {
public:
    explicit ColorMapCells(QCPColorMap* map);

protected:
    void applyDefaultAntialiasingHint(QCPPainter* painter) const override;
    void draw(QCPPainter* painter) override;
    QRect clipRect() const override;

private:
    QCPColorMap* m_map;
};

} // namespace attn::ui
