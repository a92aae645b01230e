// SPDX-License-Identifier: MIT
#include "export/vision_figure_export.h"

#include "core/error.h"
#include "core/npy.h"
#include "model/model_loader.h"
#include "vision/image_conversion.h"
#include "vision/vision_figure.h"

#include <QFileInfo>
#include <QLayout>

namespace attn::ui {

namespace {

bool showsFlow(VisionPanel panel)
{
    return panel == VisionPanel::Maps || panel == VisionPanel::Flow;
}

QSize naturalSize(const VisionFigure& figure)
{
    switch (figure.panel()) {
    case VisionPanel::Maps:
        return { 1240, 360 };
    case VisionPanel::Attention:
    case VisionPanel::Rollout:
    case VisionPanel::Flow:
        return { 360, 380 };
    case VisionPanel::Classes:
        return { 320, 300 };
    case VisionPanel::Heads:
        break;
    }
    return figure.layout()->sizeHint();
}

} // namespace

VisionResultPtr computeRecipeVision(const FigureRecipe& recipe)
{
    if (recipe.model.empty()) throw Error("no model given (MODEL or the recipe's \"model\")");
    if (recipe.image.empty()) throw Error("the vision view needs an image (--image or the recipe's \"image\")");
    auto model = std::dynamic_pointer_cast<const VisionModel>(loadModel(recipe.model));
    if (!model) throw Error(recipe.model, "is not a vision model (ViT / DeiT image classifier)");
    const QString image = QString::fromStdString(recipe.image);
    if (QFileInfo(image).suffix().toLower() == "npy")
        return classifyPixels(*model, readNpy(recipe.image), recipe.image);
    return classifyImage(*model, loadImageFile(image), recipe.image);
}

int64_t visionRecipeQuery(const FigureRecipe& recipe)
{
    return recipe.selectedToken < 0 ? 0 : recipe.selectedToken;
}

void renderVisionFigure(const VisionResultPtr& result, const FigureRecipe& recipe, const QString& path,
    FigureFormat format, VisionMaps shown)
{
    if (!result) throw Error("export: classify an image first");
    const RolloutOptions& options = recipe.vision.rollout;
    VisionFigure figure(recipe.vision.panel);
    figure.setStyle({ recipe.colormap, recipe.vision.opacity, recipe.vision.smooth });
    figure.setShowGrid(recipe.vision.showGrid);
    figure.setResult(result);
    figure.setSelection(recipe.layer, recipe.head, visionRecipeQuery(recipe));
    figure.setRollout(options,
        shown.rollout.empty() ? attentionRollout(result->layerAttention(), options) : std::move(shown.rollout));
    if (showsFlow(recipe.vision.panel) && result->numTokens() <= kAttentionFlowMaxTokens)
        figure.setFlow(shown.flow.empty() ? flowPatches(*result, figure.query(), options) : std::move(shown.flow));
    const QSize natural = naturalSize(figure);
    const QSize size(
        recipe.width > 0 ? recipe.width : natural.width(), recipe.height > 0 ? recipe.height : natural.height());
    // Offscreen and never shown: lay the panels out at the export size before they are drawn.
    figure.resize(size);
    figure.layout()->activate();
    exportWidget(figure, path, format, { size, recipe.dpi });
}

} // namespace attn::ui
