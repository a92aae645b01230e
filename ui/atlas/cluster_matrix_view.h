// SPDX-License-Identifier: MIT
#pragma once
// The head map's clustered similarity: the correlation of every pair of heads' signatures with the heads in
// dendrogram order, so a cluster is a block on the diagonal; role strips along both sides and lines between clusters.
// Drawn from one cached image (a pixel per pair), so 1,000+ heads hover and resize without recomputing.
#include "atlas/head_map_view.h"

#include <QImage>

namespace attn::ui {

class ClusterMatrixView : public HeadMapView {
    Q_OBJECT
public:
    explicit ClusterMatrixView(QWidget* parent = nullptr);
    QSize sizeHint() const override { return { 360, 360 }; }

    void setMap(HeadMapPtr map) override;
    /// The cached picture: pixel (column i, row j) is the pair (order[i], order[j]).
    const QImage& image() const { return m_image; }
    /// The square the pairs fill, in widget coordinates.
    QRectF matrixRect() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    int64_t headAt(const QPoint& at, int64_t* other) const override;

private:
    QImage m_image, m_roles; ///< [heads, heads] correlations; [heads, 1] role colours, both in cluster order
    std::vector<int64_t> m_position; ///< head index -> place in the order
};

/// White at 0, red towards +1, blue towards -1.
QColor correlationColor(float r);

} // namespace attn::ui
