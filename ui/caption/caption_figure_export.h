// SPDX-License-Identifier: MIT
#pragma once
// The caption strip as a figure (PNG/SVG/PDF, vector text) and its data (.npy [words, heads, patches]), for the
// Caption tab's Export menu and `attnscope-cli export --view caption`.
#include "caption/caption_state.h"
#include "export/figure_export.h"
#include "export/figure_recipe.h"
#include "vision/patch_overlay.h"

#include <QString>

namespace attn::ui {

/// Loads recipe.model (an image-to-text model), captions recipe.image greedily (up to 20 words, stopping at EOS)
/// and returns the finished caption. Throws Error naming the model or the image.
CaptionPtr computeRecipeCaption(const FigureRecipe& recipe);

/// Draws the strip of `state` (decoder `layer`, `head`; -1 = mean of heads) offscreen and writes it at its natural
/// size (one 104 x 124 tile per word) unless `size` says otherwise. Throws Error for an empty caption, a layer or head
/// outside the model, or an unwritable file.
void renderCaptionStrip(const CaptionPtr& state, int64_t layer, int64_t head, const OverlayStyle& style,
    const QString& path, FigureFormat format, FigureSize size = {});

/// Writes every word's cross-attention over the patches in `layer` as float32 [words, heads, patches].
void writeCaptionNpy(const CaptionState& state, int64_t layer, const std::string& path);

} // namespace attn::ui
