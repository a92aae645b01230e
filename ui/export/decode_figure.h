// SPDX-License-Identifier: MIT
#pragma once
#include "export/figure_export.h"
#include "export/figure_recipe.h"

#include <QString>

namespace attn::ui {

/// The decode view as a figure: the next-token probabilities after the recipe's input (its tokens, else its prompt
/// tokenized), run position by position as the decode panel and `attnscope-cli generate` run it, the most likely
/// token highlighted. Default size 420 x 360. Throws Error for a model that is not a decoder or an empty input.
void renderDecodeFigure(const FigureRecipe& recipe, const QString& path, FigureFormat format);

} // namespace attn::ui
