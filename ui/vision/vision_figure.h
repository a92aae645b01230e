// SPDX-License-Identifier: MIT
#pragma once
#include "vision/patch_overlay.h"
#include "vision/vision_figure_options.h"
#include "vision/vision_result.h"

#include <QWidget>

#include <vector>

class QGridLayout;

namespace attn::ui {

class ClassBarChart;
class PatchMapView;

/// The panels of one classified image: the attention of the query token in one layer/head, the rollout and flow maps
/// of the query, the top classes, or the layers x heads grid (VisionPanel says which). The vision tab shows two of
/// them (maps, heads) and every vision figure export draws one offscreen, so both look the same.
class VisionFigure : public QWidget {
    Q_OBJECT
public:
    explicit VisionFigure(VisionPanel panel, QWidget* parent = nullptr);

    /// A new result: its mean-fusion rollout is shown until setRollout; the flow map says it is pending.
    /// Shows nothing (another model was opened): no image, no classes, no head grid.
    void clear();
    void setResult(VisionResultPtr result);
    /// The overlay's layer and head (-1: mean over heads) and the query token (0 = [CLS]; prefixTokens + patch for a
    /// patch). Throws Error for values outside the result.
    void setSelection(int64_t layer, int64_t head, int64_t query);
    /// The rollout [T, T] computed with `options` (attentionRollout of the result's attention).
    void setRollout(const RolloutOptions& options, Tensor rollout);
    /// The flow into the current query under the current rollout options, restricted to the patches.
    void setFlow(std::vector<float> patches);
    /// Why there is no flow map (pending, too many tokens, failed).
    void setFlowMessage(const QString& message);
    void setStyle(const OverlayStyle& style);
    void setShowGrid(bool show);
    /// An explanation in place of the maps before there is a result.
    void setHint(const QString& hint);

    VisionPanel panel() const { return m_panel; }
    VisionResultPtr result() const { return m_result; }
    int64_t layer() const { return m_layer; }
    int64_t head() const { return m_head; }
    int64_t query() const { return m_query; }
    const RolloutOptions& rolloutOptions() const { return m_rolloutOptions; }
    const Tensor& rollout() const { return m_rolloutMatrix; }
    QString queryName() const;

    /// Null where the panel does not show that part.
    PatchMapView* attentionView() const { return m_attention; }
    PatchMapView* rolloutView() const { return m_rollout; }
    PatchMapView* flowView() const { return m_flow; }
    ClassBarChart* classChart() const { return m_classes; }
    /// The layers x heads overlays, row-major (layer * heads + head); empty unless the panel is Heads.
    const std::vector<PatchMapView*>& headViews() const { return m_headViews; }

signals:
    /// A patch of the attention, rollout or flow map was clicked (index over the grid).
    void patchClicked(qint64 patch);
    /// A thumbnail of the heads grid was clicked.
    void headClicked(qint64 layer, qint64 head);

private:
    /// "mean of heads" (plus the discarded share) for the rollout and flow titles.
    QString fusionLabel() const;
    void rebuildHeadGrid();
    void refreshAttention();
    void refreshRollout();

    VisionPanel m_panel;
    VisionResultPtr m_result;
    int64_t m_layer = 0;
    int64_t m_head = 0;
    int64_t m_query = 0;
    RolloutOptions m_rolloutOptions;
    Tensor m_rolloutMatrix;
    OverlayStyle m_style;
    bool m_showGrid = true;
    PatchMapView* m_attention = nullptr;
    PatchMapView* m_rollout = nullptr;
    PatchMapView* m_flow = nullptr;
    ClassBarChart* m_classes = nullptr;
    QGridLayout* m_headGrid = nullptr;
    std::vector<PatchMapView*> m_headViews;
};

} // namespace attn::ui
