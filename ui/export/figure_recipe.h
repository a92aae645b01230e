// SPDX-License-Identifier: MIT
#pragma once
// A "view recipe": everything that reproduces one exported figure (model, input, view, head, colours, size).
#include "controller/attention_provider.h"
#include "plots/colormaps.h"
#include "plots/heatmap_matrix.h"
#include "plots/stats_view.h"
#include "vision/vision_figure_options.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn::ui {

enum class FigureView { Heatmap, Grid, HeadView, Stats, Decode, Vision, Caption };

struct FigureRecipe {
    std::string model; ///< path as given (a recipe stays valid when the model is referenced relatively)
    std::string prompt; ///< the input text, or
    std::vector<int64_t> tokens; ///< the input ids (used when prompt is empty)
    std::string text; ///< beside `tokens`: the text they came from, for people reading the recipe (ids replay)
    std::string target; ///< encoder-decoders: the decoder's (teacher-forced) target text; `prompt` is the source
    AttentionKind attention = AttentionKind::Self; ///< encoder-decoders: which attention (Self = the model's default)
    FigureView view = FigureView::Heatmap;
    int64_t layer = 0;
    int64_t head = 0; ///< vision, caption: -1 = mean of heads
    std::vector<int64_t> heads; ///< head view: the heads drawn (empty: just `head`)
    int64_t selectedToken = -1; ///< head view: only this query's lines (-1: all); vision: the query token (-1: [CLS])
    std::string image; ///< vision: an image file, or a .npy of preprocessed pixels [channels, H, W]; caption: a file
    VisionFigureOptions vision; ///< vision: panel, rollout fusion/discard, overlay opacity/smoothing/grid (caption:
                                ///< opacity and smoothing)
    Colormap colormap = Colormap::Viridis;
    HeatmapOptions options; ///< heatmap scaling, first-token exclusion, mask display
    StatsView::Metric metric = StatsView::Entropy;
    int width = 0; ///< logical pixels (1/96 inch); 0: the view's natural size
    int height = 0;
    int dpi = 96; ///< PNG resolution
};

/// Stable names used by the CLI and in recipe files.
std::string figureViewName(FigureView view);
/// heatmap|grid|headview|stats|decode|vision|caption; throws Error
FigureView figureViewFromName(const std::string& name);
std::string colormapKey(Colormap map);
Colormap colormapFromKey(const std::string& key); ///< viridis|magma|grayscale|diverging; throws Error
std::string scaleModeKey(ScaleMode mode);
ScaleMode scaleModeFromKey(const std::string& key); ///< linear|log10|row; throws Error
std::string attentionKindKey(AttentionKind kind);
AttentionKind attentionKindFromKey(const std::string& key); ///< self|encoder|decoder|cross; throws Error
std::string metricKey(StatsView::Metric metric);
StatsView::Metric metricFromKey(const std::string& key); ///< entropy|normalized-entropy|mean-distance|...; throws Error

/// The recipe as an indented JSON document (keys in a fixed order).
std::string recipeToJson(const FigureRecipe& recipe);
/// Parses a recipe; `source` names the file in errors. Unknown keys and wrong types are errors.
FigureRecipe recipeFromJson(const std::string& json, const std::string& source);
FigureRecipe readRecipeFile(const std::string& path);
void writeRecipeFile(const std::string& path, const FigureRecipe& recipe);

} // namespace attn::ui
