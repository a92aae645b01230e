// SPDX-License-Identifier: MIT
#pragma once
#include "export/figure_export.h"
#include "export/figure_recipe.h"
#include "vision/patch_overlay.h"
#include "vision/vision_figure.h"
#include "vision/vision_result.h"

#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace attn::ui {

class ClassBarChart;
class PatchMapView;
class EngineController;
class VisionController;

/// The vision tab: an image (dialog or drag & drop; a preprocessed [C, H, W] .npy works too) classified by a ViT;
/// the attention of the selected token ([CLS] or a clicked patch) in one layer/head as an overlay, beside the rollout
/// and flow maps (head fusion and discard ratio adjustable); a layers x heads grid of overlays and the top-5 class
/// probabilities. Rollout and flow are computed on the controller's engine thread.
class VisionView : public QWidget {
    Q_OBJECT
public:
    /// `engine`: the app's engine (null: one of its own, for a view used alone).
    explicit VisionView(EngineController* engine = nullptr, QWidget* parent = nullptr);
    /// Another model is being opened: the model, image, classes and head grid go.
    void closeModel();

    VisionController* controller() const { return m_controller; }
    /// Opens and classifies an image file, or a .npy of preprocessed pixels (asynchronously); errors go to
    /// errorShown.
    void openImage(const QString& path);
    /// Shows a result (what the controller's resultReady does).
    void setResult(VisionResultPtr result);
    /// Selects the query token (0 = [CLS]; prefixTokens + patch for a patch) and the layer/head of the main overlay
    /// (head -1: mean over heads). Clamped to the result.
    void setQuery(int64_t token);
    void setHead(int64_t layer, int64_t head);
    void setStyle(const OverlayStyle& style);
    /// The rollout and flow setting (the fusion and discard controls follow); the maps update asynchronously
    /// (rolloutShown, flowShown).
    void setRolloutOptions(const RolloutOptions& options);

    VisionResultPtr result() const { return m_maps->result(); }
    int64_t query() const { return m_maps->query(); }
    const RolloutOptions& rolloutOptions() const { return m_rolloutOptions; }
    PatchMapView* attentionView() const { return m_maps->attentionView(); }
    PatchMapView* rolloutView() const { return m_maps->rolloutView(); }
    PatchMapView* flowView() const { return m_maps->flowView(); }
    ClassBarChart* classChart() const { return m_maps->classChart(); }
    /// The layers x heads overlays, row-major (layer * heads + head).
    const std::vector<PatchMapView*>& headViews() const { return m_heads->headViews(); }

    /// What the tab shows as a vision recipe: model, image file, layer/head/query, rollout setting, look, and the
    /// maps' on-screen size. Throws Error before an image was classified.
    FigureRecipe figureRecipe() const;
    /// Export > figure: the maps and classes as shown, drawn by renderVisionFigure (as `attnscope-cli export
    /// --view vision` draws them). Throws Error before an image was classified or when the file cannot be written.
    void exportFigure(const QString& path, FigureFormat format, int dpi) const;

signals:
    /// A result reached the views (after setResult) / the rollout map was recomputed / the flow map was updated.
    void resultShown();
    void rolloutShown();
    void flowShown();
    void errorShown(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void chooseImage();
    void requestFlow();
    void updateQueryLabel();

    VisionController* m_controller;
    VisionFigure* m_maps;
    VisionFigure* m_heads;
    RolloutOptions m_rolloutOptions;
    OverlayStyle m_style;
    bool m_flowReady = false;
    QSpinBox* m_layerBox;
    QSpinBox* m_headBox;
    QComboBox* m_fusionBox;
    QDoubleSpinBox* m_discardBox;
    QComboBox* m_colormapBox;
    QSlider* m_opacity;
    QCheckBox* m_smooth;
    QCheckBox* m_showGrid;
    QLabel* m_queryLabel;
};

} // namespace attn::ui
