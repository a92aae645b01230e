// SPDX-License-Identifier: MIT
#pragma once
// Vision recipes (`"view": "vision"`): a ViT's attention over an image as a figure, drawn by the same VisionFigure
// the vision tab shows, for both the tab's Export menu and `attnscope-cli export`.
#include "export/figure_export.h"
#include "export/figure_recipe.h"
#include "vision/vision_result.h"

#include <QString>

#include <vector>

namespace attn::ui {

/// Maps already on screen, so an export does not compute them again; an empty member is computed from the recipe.
struct VisionMaps {
    Tensor rollout; ///< [T, T] under recipe.vision.rollout
    std::vector<float> flow; ///< into the recipe's query, over the patches
};

/// Loads recipe.model (a ViT / DeiT) and classifies recipe.image: an image file, or a .npy of preprocessed pixels
/// [channels, H, W]. Throws Error naming the model or the file.
VisionResultPtr computeRecipeVision(const FigureRecipe& recipe);

/// The query token of a vision recipe: selected_token, or 0 ([CLS]) when it is negative.
int64_t visionRecipeQuery(const FigureRecipe& recipe);

/// Draws recipe.vision.panel for `result` (layer, head -1 = mean of heads, query, colormap, opacity, rollout
/// fusion/discard as the recipe says) offscreen and writes it. Default sizes: maps 1240 x 360, one map 360 x 380,
/// classes 320 x 300, heads the grid's natural size. The flow map is computed when the input has at most
/// kAttentionFlowMaxTokens tokens and states the cap otherwise. Throws Error for a layer, head or token outside the
/// model and for an unwritable file.
void renderVisionFigure(const VisionResultPtr& result, const FigureRecipe& recipe, const QString& path,
    FigureFormat format, VisionMaps shown = {});

} // namespace attn::ui
