// SPDX-License-Identifier: MIT
#pragma once
#include "vision/patch_overlay.h"

#include <QImage>
#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

class QPainter;

namespace attn::ui {

/// The image with per-patch values as a colour overlay, the patch grid and the selected patch outlined.
/// Clicking a patch emits patchClicked with its index (row-major over the grid).
class PatchMapView : public QWidget {
    Q_OBJECT
public:
    explicit PatchMapView(QWidget* parent = nullptr);

    /// Throws Error when values does not hold one value per patch of `grid`.
    void setContent(const QImage& image, PatchGrid grid, std::vector<float> values, const QString& title);
    /// An explanation in place of the overlay (e.g. why there is no flow map).
    void setMessage(const QString& title, const QString& message);
    void setStyle(const OverlayStyle& style);
    void setShowGrid(bool show);
    /// -1: none.
    void setSelectedPatch(int64_t patch);
    /// The title takes at least `lines` lines whether it needs them or not, so that maps side by side put their
    /// images at the same height (default 1).
    void setReservedTitleLines(int lines);

    const std::vector<float>& values() const { return m_values; }
    PatchGrid grid() const { return m_grid; }
    /// The image area as painted (image + overlay, without grid lines and selection), `size` pixels.
    QImage overlayImage(QSize size) const;
    /// Where the image is painted in widget coordinates.
    QRect imageRect() const;
    const QString& title() const { return m_title; }
    /// The title as painted at the current width: wrapped between words onto at most two lines, the second elided
    /// only where even two lines cannot hold it.
    QStringList titleLines() const;
    /// Under Colormap::Diverging the values are signed and a scale bar under the image gives its ends:
    /// "−max |value|", "0" and "+max |value|" (empty under the other maps).
    QStringList scaleLabels() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void patchClicked(qint64 patch);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    bool hasScaleBar() const;
    QRect scaleBarRect() const;
    void paintScaleBar(QPainter& painter) const;

    QImage m_image;
    PatchGrid m_grid;
    std::vector<float> m_values;
    QString m_title;
    QString m_message;
    OverlayStyle m_style;
    bool m_showGrid = true;
    int64_t m_selected = -1;
    int m_reservedTitleLines = 1;
};

} // namespace attn::ui
