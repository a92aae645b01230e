// SPDX-License-Identifier: MIT
#pragma once
#include "vision/patch_overlay.h"
#include "vision/vision_result.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QCPBars;
class QCustomPlot;
class QGridLayout;
class QLabel;
class QSlider;
class QSpinBox;

namespace attn::ui {

class PatchMapView;
class VisionController;

/// The vision tab: an image (dialog or drag & drop) classified by a ViT; the attention of the selected token
/// ([CLS] or a clicked patch) in one layer/head as an overlay, beside the rollout and flow maps; a layers x heads
/// grid of overlays and the top-5 class probabilities.
class VisionView : public QWidget {
    Q_OBJECT
public:
    explicit VisionView(QWidget* parent = nullptr);

    VisionController* controller() const { return m_controller; }
    /// Opens and classifies an image file (asynchronously); errors go to errorShown.
    void openImage(const QString& path);
    /// Shows a result (what the controller's resultReady does).
    void setResult(VisionResultPtr result);
    /// Selects the query token (0 = [CLS]; prefixTokens + patch for a patch) and the layer/head of the main overlay
    /// (head -1: mean over heads). Clamped to the result.
    void setQuery(int64_t token);
    void setHead(int64_t layer, int64_t head);
    void setStyle(const OverlayStyle& style);

    VisionResultPtr result() const { return m_result; }
    int64_t query() const { return m_query; }
    PatchMapView* attentionView() const { return m_attention; }
    PatchMapView* rolloutView() const { return m_rollout; }
    PatchMapView* flowView() const { return m_flow; }
    /// The layers x heads overlays, row-major (layer * heads + head).
    const std::vector<PatchMapView*>& headViews() const { return m_headViews; }
    QCustomPlot* classPlot() const { return m_plot; }

signals:
    /// A result reached the views (after setResult) / the flow map was updated.
    void resultShown();
    void flowShown();
    void errorShown(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void chooseImage();
    void rebuildHeadGrid();
    void refresh();
    void refreshClasses();
    QString queryName() const;

    VisionController* m_controller;
    VisionResultPtr m_result;
    int64_t m_query = 0;
    OverlayStyle m_style;
    PatchMapView* m_attention;
    PatchMapView* m_rollout;
    PatchMapView* m_flow;
    std::vector<PatchMapView*> m_headViews;
    QGridLayout* m_headGrid;
    QCustomPlot* m_plot;
    QCPBars* m_bars;
    QSpinBox* m_layerBox;
    QSpinBox* m_headBox;
    QComboBox* m_colormapBox;
    QSlider* m_opacity;
    QCheckBox* m_smooth;
    QCheckBox* m_showGrid;
    QLabel* m_queryLabel;
};

} // namespace attn::ui
