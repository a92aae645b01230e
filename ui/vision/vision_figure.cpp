// SPDX-License-Identifier: MIT
#include "vision/vision_figure.h"

#include "core/error.h"
#include "vision/class_bar_chart.h"
#include "vision/patch_map_view.h"

#include <QGridLayout>
#include <QHBoxLayout>

#include <algorithm>

namespace attn::ui {

namespace {
constexpr int kThumbSize = 92;
} // namespace

VisionFigure::VisionFigure(VisionPanel panel, QWidget* parent)
    : QWidget(parent)
    , m_panel(panel)
{
    if (panel == VisionPanel::Heads) {
        m_headGrid = new QGridLayout(this);
        m_headGrid->setSpacing(2);
        m_headGrid->setContentsMargins(4, 4, 4, 4);
        return;
    }
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    const bool maps = panel == VisionPanel::Maps;
    const auto addMap = [&](PatchMapView*& view) {
        view = new PatchMapView;
        // Side by side, a two-line title beside a one-line one would set the images at different heights.
        if (maps) view->setReservedTitleLines(2);
        connect(view, &PatchMapView::patchClicked, this, &VisionFigure::patchClicked);
        row->addWidget(view, 1);
    };
    if (maps || panel == VisionPanel::Attention) addMap(m_attention);
    if (maps || panel == VisionPanel::Rollout) addMap(m_rollout);
    if (maps || panel == VisionPanel::Flow) {
        addMap(m_flow);
        m_flow->setToolTip(tr("Attention flow (max-flow through all layers) is computed for inputs of up to %1 tokens.")
                               .arg(kAttentionFlowMaxTokens));
    }
    if (maps || panel == VisionPanel::Classes) {
        m_classes = new ClassBarChart;
        row->addWidget(m_classes, 1);
    }
    setHint(QString());
}

void VisionFigure::setHint(const QString& hint)
{
    if (m_attention) m_attention->setMessage(tr("Attention"), hint);
    if (m_rollout) m_rollout->setMessage(tr("Rollout"), QString());
    if (m_flow) m_flow->setMessage(tr("Attention flow"), QString());
}

void VisionFigure::setResult(VisionResultPtr result)
{
    if (!result) throw Error("vision view", "no result to show");
    m_result = std::move(result);
    m_rolloutOptions = RolloutOptions {};
    m_rolloutMatrix = m_result->rollout;
    m_layer = std::clamp<int64_t>(m_layer, 0, m_result->numLayers() - 1);
    m_head = std::clamp<int64_t>(m_head, -1, m_result->numHeads() - 1);
    m_query = std::clamp<int64_t>(m_query, 0, m_result->numTokens() - 1);
    if (m_classes) m_classes->setClasses(m_result->topClasses);
    if (m_headGrid) rebuildHeadGrid();
    refreshAttention();
    refreshRollout();
    setFlowMessage(tr("Computing…"));
}

void VisionFigure::clear()
{
    m_result.reset();
    if (m_classes) m_classes->setClasses({});
    for (PatchMapView* view : m_headViews)
        delete view;
    m_headViews.clear();
    for (PatchMapView* view : { m_attention, m_rollout, m_flow })
        if (view) view->setMessage(QString(), tr("Open an image (File > Open image, or drop one here)."));
}

void VisionFigure::setSelection(int64_t layer, int64_t head, int64_t query)
{
    if (!m_result) return;
    if (layer < 0 || layer >= m_result->numLayers() || head < -1 || head >= m_result->numHeads() || query < 0
        || query >= m_result->numTokens())
        throw Error("vision figure",
            "layer " + std::to_string(layer) + ", head " + std::to_string(head) + " or token " + std::to_string(query)
                + " is outside the model (" + std::to_string(m_result->numLayers()) + " layers, "
                + std::to_string(m_result->numHeads()) + " heads, " + std::to_string(m_result->numTokens())
                + " tokens)");
    const bool queryChanged = query != m_query;
    m_layer = layer;
    m_head = head;
    m_query = query;
    refreshAttention();
    if (queryChanged) {
        refreshRollout();
        setFlowMessage(tr("Computing…"));
    }
}

void VisionFigure::setRollout(const RolloutOptions& options, Tensor rollout)
{
    m_rolloutOptions = options;
    m_rolloutMatrix = std::move(rollout);
    refreshRollout();
    setFlowMessage(tr("Computing…"));
}

void VisionFigure::setFlow(std::vector<float> patches)
{
    if (!m_flow || !m_result) return;
    m_flow->setContent(m_result->image, m_result->grid, std::move(patches),
        tr("Attention flow (%1) into %2").arg(fusionLabel(), queryName()));
}

void VisionFigure::setFlowMessage(const QString& message)
{
    if (!m_flow) return;
    // Beyond the cap no flow is ever computed: say so instead of a pending note.
    if (m_result && m_result->numTokens() > kAttentionFlowMaxTokens)
        m_flow->setMessage(tr("Attention flow"),
            tr("Not computed: %1 tokens (attention flow is limited to %2 tokens).")
                .arg(m_result->numTokens())
                .arg(kAttentionFlowMaxTokens));
    else
        m_flow->setMessage(tr("Attention flow"), message);
}

void VisionFigure::setStyle(const OverlayStyle& style)
{
    m_style = style;
    for (PatchMapView* view : { m_attention, m_rollout, m_flow })
        if (view) view->setStyle(style);
    for (PatchMapView* view : m_headViews)
        view->setStyle(style);
}

void VisionFigure::setShowGrid(bool show)
{
    m_showGrid = show;
    for (PatchMapView* view : { m_attention, m_rollout, m_flow })
        if (view) view->setShowGrid(show);
}

QString VisionFigure::fusionLabel() const
{
    const QString fusion = tr("%1 of heads").arg(QString::fromStdString(headFusionName(m_rolloutOptions.fusion)));
    if (m_rolloutOptions.discardRatio <= 0.0) return fusion;
    return tr("%1, %2% discarded").arg(fusion).arg(m_rolloutOptions.discardRatio * 100.0, 0, 'g', 3);
}

QString VisionFigure::queryName() const
{
    return m_result ? QString::fromStdString(m_result->tokenNames[static_cast<size_t>(m_query)]) : QString();
}

void VisionFigure::rebuildHeadGrid()
{
    for (PatchMapView* view : m_headViews)
        delete view;
    m_headViews.clear();
    for (int64_t l = 0; l < m_result->numLayers(); ++l)
        for (int64_t h = 0; h < m_result->numHeads(); ++h) {
            auto* view = new PatchMapView;
            view->setFixedSize(kThumbSize, kThumbSize + 14);
            view->setShowGrid(false);
            view->setStyle(m_style);
            view->setToolTip(tr("Layer %1, head %2 (click to show it above)").arg(l).arg(h));
            connect(view, &PatchMapView::patchClicked, this, [this, l, h] { emit headClicked(l, h); });
            m_headGrid->addWidget(view, static_cast<int>(l), static_cast<int>(h));
            m_headViews.push_back(view);
        }
}

void VisionFigure::refreshAttention()
{
    if (!m_result) return;
    const int64_t patch = m_query - m_result->prefixTokens; // negative for [CLS] / [DIST]
    if (m_attention) {
        m_attention->setContent(m_result->image, m_result->grid, m_result->patchAttention(m_layer, m_head, m_query),
            m_head < 0 ? tr("Layer %1, mean of heads: attention of %2").arg(m_layer).arg(queryName())
                       : tr("Layer %1, head %2: attention of %3").arg(m_layer).arg(m_head).arg(queryName()));
        m_attention->setSelectedPatch(patch);
    }
    if (!m_headViews.empty())
        for (int64_t l = 0; l < m_result->numLayers(); ++l)
            for (int64_t h = 0; h < m_result->numHeads(); ++h)
                m_headViews[static_cast<size_t>(l * m_result->numHeads() + h)]->setContent(m_result->image,
                    m_result->grid, m_result->patchAttention(l, h, m_query), tr("L%1 H%2").arg(l).arg(h));
    if (m_flow) m_flow->setSelectedPatch(patch);
}

void VisionFigure::refreshRollout()
{
    if (!m_rollout || !m_result) return;
    m_rollout->setContent(m_result->image, m_result->grid, m_result->rowPatches(m_rolloutMatrix, m_query),
        tr("Rollout (%1) of %2").arg(fusionLabel(), queryName()));
    m_rollout->setSelectedPatch(m_query - m_result->prefixTokens);
}

} // namespace attn::ui
