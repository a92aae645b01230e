// SPDX-License-Identifier: MIT
#pragma once
// The whole attention matrix of a long input in miniature, with the heatmap's viewport drawn on it; a click moves the
// viewport there.
#include <QImage>
#include <QRectF>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace attn::ui {

class HeatmapMinimap : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapMinimap(QWidget* parent = nullptr);

    /// The thumbnail of a numQueries x numKeys matrix.
    void setImage(const QImage& image, int64_t numQueries, int64_t numKeys);
    /// The visible part in token coordinates (x: keys, y: queries).
    void setViewport(const QRectF& tokens);
    const QRectF& viewport() const { return m_viewport; }
    /// Token positions found by the heatmap's token search, ticked along the top (keys) and left (queries) edges;
    /// `current` (an index into them, -1: none) is also ringed on the diagonal.
    void setMarks(std::vector<int64_t> positions, int current);
    QSize sizeHint() const override { return QSize(132, 132); }

signals:
    /// The user clicked the token cell (row, col).
    void jumpRequested(int64_t row, int64_t col);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRectF imageRect() const;

    QImage m_image;
    int64_t m_numQueries = 0;
    int64_t m_numKeys = 0;
    QRectF m_viewport;
    std::vector<int64_t> m_marks;
    int m_current = -1;
};

} // namespace attn::ui
