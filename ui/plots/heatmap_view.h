// SPDX-License-Identifier: MIT
#pragma once
#include "model/attention_snapshot.h"
#include "plots/colormaps.h"
#include "plots/heatmap_matrix.h"
#include "widgets/view_placeholder.h"

#include <QWidget>

#include <functional>
#include <string>

class QCustomPlot;
class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCPTextElement;
class QAction;
class QComboBox;
class QMouseEvent;
class QSpinBox;
class QPushButton;

namespace attn::ui {

class HeatmapMinimap;
class HeatmapSearch;
class RedrawCoalescer;
class TokenLink;

/// Names for a heatmap of something other than one head's attention (empty fields keep the defaults).
struct HeatmapCaption {
    QString title = {}; ///< default "Layer L · Head H"
    QString x = {}, y = {}; ///< axis names; default key / query
    QString value = {}; ///< colour bar; default the scale's ("weight", ...)
};

/// One head's attention matrix: queries down, keys across, token labels, hover tooltip, zoom/pan, colour bar.
/// A long input is read through the snapshot's source: the visible window token by token once zoomed in, else an
/// overview of blocks; a minimap with the viewport and "go to token" come with it. Labels follow the zoom. With a
/// link, the zoom is the link's token range: it follows the range and sets it.
class HeatmapView : public QWidget {
    Q_OBJECT
public:
    /// Runs `compute` on the engine thread, then `done` on the GUI thread unless `client` is gone by then
    /// (EngineController::post), with the error's message when `compute` threw ("" when it did not).
    using Deriver = std::function<void(
        QObject* client, std::function<void()> compute, std::function<void(const QString& error)> done)>;

    explicit HeatmapView(QWidget* parent = nullptr);
    ~HeatmapView() override;
    /// Where a long input's tiles and overviews that are not cached yet are derived: with a deriver the view never
    /// computes them on the GUI thread (it shows the head's thumbnail, or nothing, saying "computing…" until they
    /// arrive); without one they are derived where asked (standalone views, short inputs).
    void setDeriver(Deriver deriver) { m_deriver = std::move(deriver); }
    /// Whether what the view should show is still being derived on the engine thread.
    bool isDeriving() const { return !m_pending.empty(); }

    void setSnapshot(SnapshotPtr snapshot);
    /// What the view says while it has no attention to show (what is missing).
    void setPlaceholder(const QString& text);
    /// The title as drawn: the head shown, or the placeholder.
    QString titleText() const;
    void setHead(int64_t layer, int64_t head);
    void setColormap(Colormap map);
    void setOptions(const HeatmapOptions& options);
    /// Renames the title, axes and colour bar (panels that show other matrices).
    void setCaption(const HeatmapCaption& caption);
    /// Linked hover: the hovered cell's query and key go to `link`; the tokens hovered anywhere get a row and a column
    /// band here.
    void setLink(TokenLink* link);
    /// The query row and key column the linked-hover bands mark now (-1: that band is hidden).
    std::pair<int64_t, int64_t> linkedBands() const;
    /// Find by token text (the controls row's find box).
    const HeatmapSearch& search() const { return *m_search; }
    /// Hides the colormap / scale / mask row (panels that set those for several views at once).
    void setControlsVisible(bool visible);

    Colormap colormap() const { return m_colormap; }
    const HeatmapOptions& options() const { return m_options; }
    const SnapshotPtr& snapshot() const { return m_snapshot; }
    const HeatmapCaption& caption() const { return m_caption; }
    int64_t layer() const { return m_layer; }
    int64_t head() const { return m_head; }
    /// What is drawn now (after flushRedraw()).
    const HeatmapMatrix& matrix() const { return m_matrix; }
    /// Centre of cell (row, col) in this widget's coordinates.
    QPoint cellCenter(int64_t row, int64_t col) const;
    /// The hover text of a cell: query token, key token, weight, rank in row (or why it is masked).
    QString cellToolTip(int64_t row, int64_t col) const;
    /// Applies pending changes and replots synchronously.
    void flushRedraw();
    /// The plot alone: what figure exports draw.
    QCustomPlot* plot() const { return m_plot; }
    /// Lays the plot out at `size` without showing it and fits the token labels to that size (offscreen exports).
    void layoutPlot(const QSize& size);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void rebuild();
    /// Places the row and column bands of the linked tokens.
    void showLinked();
    /// More tokens than one window draws token by token.
    bool isLong() const;
    /// The matrix, window or overview level the current zoom shows; with a deriver, a stand-in while that is derived.
    HeatmapMatrix buildVisible();
    /// Has the deriver run `compute` (once per `key`) and returns what to show meanwhile: the head's thumbnail when
    /// it is at hand, else nothing.
    HeatmapMatrix whileDeriving(const std::string& key, std::function<void()> compute);
    /// The row of weights over every key that a tooltip can read at once (the window drawn), else null.
    std::shared_ptr<const Tensor> hoverRows(int64_t row, int64_t* offset) const;
    void viewportChanged();
    /// Zooms to the link's token range (another view or the toolbar changed it).
    void applyRange();
    /// Makes what the zoom shows now the link's token range.
    void publishRange();
    /// Moves the view's centre to (row, col); `zoom` also zooms to a few dozen tokens.
    void centerOn(double row, double col, bool zoom);
    /// How the token labels are spaced: every keyStep-th key (turned or flat), every queryStep-th query.
    struct AxisLabels {
        int64_t keyStep = 0;
        int64_t queryStep = 0;
        bool turned = false;
        bool operator==(const AxisLabels&) const = default;
    };
    /// The spacing at which labels fit the axis rect as laid out now.
    AxisLabels axisLabels() const;
    /// Spaces the labels for new content or a new range: labelsAfterLayout() may then re-space them twice again.
    void updateAxisLabels();
    void spaceAxisLabels();
    void labelsAfterLayout();
    void resetZoom();
    /// The options button's text counts the options switched on.
    void showOptionsOn();
    void onMouseMove(QMouseEvent* event);
    QString maskReason(int64_t row, int64_t col) const;

    QCustomPlot* m_plot = nullptr;
    QCPColorMap* m_map = nullptr;
    QCPColorScale* m_scale = nullptr;
    QCPTextElement* m_title = nullptr;
    QComboBox* m_colormapBox = nullptr;
    QComboBox* m_scaleBox = nullptr;
    QAction* m_excludeFirst = nullptr; ///< in the options button's menu
    QAction* m_showMask = nullptr;
    QPushButton* m_optionsButton = nullptr;
    RedrawCoalescer* m_redraw = nullptr;
    QWidget* m_side = nullptr;
    HeatmapMinimap* m_minimap = nullptr;
    QSpinBox* m_jump = nullptr;
    HeatmapSearch* m_search = nullptr;
    TokenLink* m_link = nullptr;
    QCPItemRect* m_rowBand = nullptr;
    QCPItemRect* m_columnBand = nullptr;
    bool m_applying = false; ///< zooming to the link's range: not a change to publish
    bool m_publishing = false; ///< this view's own change coming back from the link

    SnapshotPtr m_snapshot;
    QString m_placeholder = noAttentionYet();
    int64_t m_layer = 0;
    int64_t m_head = 0;
    Colormap m_colormap = Colormap::Viridis;
    HeatmapOptions m_options;
    HeatmapMatrix m_matrix;
    HeatmapCaption m_caption;
    QWidget* m_controls = nullptr;
    Deriver m_deriver;
    std::string m_pending; ///< what the deriver computes now ("": nothing)
    std::string m_failed; ///< what it could not compute (not asked again), and why
    QString m_failure;
    int64_t m_shownQueries = -1; ///< the shape the zoom was last reset for
    int64_t m_shownKeys = -1;
    AxisLabels m_labels; ///< the spacing the axes' tickers were made for
    /// The plot size labelsAfterLayout() last spaced the labels for, and how often since that size or the content
    /// or range last changed.
    QSize m_respacedSize;
    int m_respacings = 0;
};

} // namespace attn::ui
