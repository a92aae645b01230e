// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"
#include "plots/colormaps.h"

#include <QImage>
#include <QWidget>

#include <vector>

namespace attn::ui {

/// Every head of the model as a layers x heads grid of thumbnails, drawn from cached QImages (one per head, built
/// when the snapshot or colormap changes, so repaints only scale images). Click or Enter opens a head.
/// GQA/MQA: a coloured band over the columns marks the query heads that share one KV head.
class HeadGridView : public QWidget {
    Q_OBJECT
public:
    explicit HeadGridView(QWidget* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    void setColormap(Colormap map);
    void setCurrent(int64_t layer, int64_t head);

    int64_t thumbnailCount() const { return static_cast<int64_t>(m_thumbnails.size()); }
    const QImage& thumbnail(int64_t layer, int64_t head) const;
    QRect thumbnailRect(int64_t layer, int64_t head) const;
    QSize sizeHint() const override;

signals:
    void headActivated(qint64 layer, qint64 head);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void rebuildThumbnails();
    int cellSize() const;

    SnapshotPtr m_snapshot;
    Colormap m_colormap = Colormap::Viridis;
    std::vector<QImage> m_thumbnails; ///< [layer * heads + head]
    int64_t m_layer = 0;
    int64_t m_head = 0;
};

} // namespace attn::ui
