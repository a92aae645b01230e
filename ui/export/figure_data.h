// SPDX-License-Identifier: MIT
#pragma once
// The numbers behind a figure, for analysis outside AttnScope: NumPy .npy (float32) and CSV.
#include "core/tensor.h"
#include "export/figure_recipe.h"
#include "model/attention_snapshot.h"

#include <string>

namespace attn::ui {

/// The data of the recipe's view as one float32 tensor, exactly the engine's probabilities (no display scaling):
/// heatmap [q, k] of (layer, head); headview [heads, q, k] of the chosen heads (ascending) of the layer;
/// grid [layers, heads, q, k]; stats [layers, heads, metrics] in StatsView::Metric order. Throws Error for heads
/// outside the snapshot and for the decode view.
Tensor figureData(const AttentionSnapshot& snapshot, const FigureRecipe& recipe);

/// Writes figureData() as a little-endian '<f4' .npy file.
void writeFigureNpy(const std::string& path, const AttentionSnapshot& snapshot, const FigureRecipe& recipe);

/// CSV (RFC 4180, UTF-8): heatmap as a matrix (key tokens across, query tokens down); headview and grid in long form
/// (layer,head,query,key,query_token,key_token,weight); stats as the statistics table with role tags.
void writeFigureCsv(const std::string& path, const AttentionSnapshot& snapshot, const FigureRecipe& recipe);

} // namespace attn::ui
