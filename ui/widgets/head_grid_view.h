// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"
#include "plots/colormaps.h"
#include "widgets/view_placeholder.h"

#include <QColor>
#include <QFont>
#include <QImage>
#include <QString>
#include <QWidget>

#include <functional>
#include <map>
#include <utility>
#include <vector>

class QPainter;

namespace attn::ui {

/// The grid's cells as drawn (thumbnails, role tags, ablation frames and the current head's frame): a value that any
/// thread can draw, so that a figure export builds and draws its 144 thumbnails on its worker (recorded on the GUI
/// thread, a QPicture PNG-encoded every one of them there: most of a grid export's 40-66 ms).
struct HeadGridCells {
    SnapshotPtr snapshot;
    Colormap colormap = Colormap::Viridis;
    std::map<std::pair<int64_t, int64_t>, QString> marks;
    int64_t layer = 0, head = 0; ///< the current head, framed
    int cell = 64; ///< cell side in pixels
    QFont font;
    QColor highlight;

    /// Draws every cell that meets `exposed`, each thumbnail from `thumbnail(layer, head)`.
    void paint(QPainter& painter, const QRect& exposed,
        const std::function<const QImage&(int64_t layer, int64_t head)>& thumbnail) const;
};

/// Every head of the model as a layers x heads grid of thumbnails, drawn from cached QImages (one per head, built
/// when first drawn after the snapshot or colormap changes, so repaints only scale images). Click or Enter opens a
/// head. GQA/MQA: a coloured band over the columns marks the query heads that share one KV head. Heads under an
/// intervention (ablated) get a red frame and their tag; a right click asks for a head's menu.
class HeadGridView : public QWidget {
    Q_OBJECT
public:
    explicit HeadGridView(QWidget* parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    /// What the view says while it has no attention to show (what is missing).
    void setPlaceholder(const QString& text);
    void setColormap(Colormap map);
    void setCurrent(int64_t layer, int64_t head);
    /// (layer, head) -> tag ("zero", "mean", "x0.5"): the heads drawn as changed by an intervention; empty: none.
    void setMarks(std::map<std::pair<int64_t, int64_t>, QString> marks);
    /// The tag of (layer, head), empty when it is not marked.
    QString mark(int64_t layer, int64_t head) const;
    /// Exports only: render() leaves the cells out, for the caller to draw cells() on the writing thread.
    void setCellsDeferred(bool deferred) { m_cellsDeferred = deferred; }
    /// The cells as this view draws them now.
    HeadGridCells cells() const;
    /// A head's thumbnail as the grid draws it (any thread; grey while the head is still being summarized).
    static QImage renderThumbnail(const AttentionSnapshot& snapshot, int64_t layer, int64_t head, Colormap map);

    int64_t thumbnailCount() const { return static_cast<int64_t>(m_thumbnails.size()); }
    const QImage& thumbnail(int64_t layer, int64_t head) const;
    QRect thumbnailRect(int64_t layer, int64_t head) const;
    QSize sizeHint() const override;
    /// The grid fills the width it gets; a deep model is then taller than its scroll area and scrolls.
    int heightForWidth(int width) const override;

signals:
    void headActivated(qint64 layer, qint64 head);
    /// A right click (or the menu key) on a head, which is then current; `globalPos` is where its menu goes.
    void headMenuRequested(qint64 layer, qint64 head, const QPoint& globalPos);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void rebuildThumbnails();
    int cellSize() const;
    /// The head under `pos` as (layer, head), or (-1, -1).
    std::pair<int64_t, int64_t> headAt(const QPoint& pos) const;

    SnapshotPtr m_snapshot;
    QString m_placeholder = noAttentionYet();
    Colormap m_colormap = Colormap::Viridis;
    mutable std::vector<QImage> m_thumbnails; ///< [layer * heads + head], null until thumbnail() builds it
    int64_t m_layer = 0;
    int64_t m_head = 0;
    std::map<std::pair<int64_t, int64_t>, QString> m_marks;
    bool m_cellsDeferred = false;
};

} // namespace attn::ui
