// SPDX-License-Identifier: MIT
#include "caption/caption_figure_export.h"

#include "caption/caption_strip.h"
#include "core/error.h"
#include "core/npy.h"

#include <QLayout>

namespace attn::ui {

CaptionPtr computeRecipeCaption(const FigureRecipe& recipe)
{
    if (recipe.model.empty()) throw Error("no model given (MODEL or the recipe's \"model\")");
    if (recipe.image.empty()) throw Error("the caption view needs an image (--image or the recipe's \"image\")");
    const Captioner captioner = loadCaptioner(recipe.model);
    const CaptionImage image = loadCaptionImage(captioner.model->imageEncoder(), QString::fromStdString(recipe.image));
    EncoderInput input;
    input.pixels = image.pixels;
    CaptionRun run(captioner.model, captioner.model->encode(input, {}), CaptionOptions {});
    while (run.step()) { }
    return captionState(captioner, run, image);
}

void renderCaptionStrip(const CaptionPtr& state, int64_t layer, int64_t head, const OverlayStyle& style,
    const QString& path, FigureFormat format, FigureSize size)
{
    if (!state || state->words.empty()) throw Error("export: the caption has no words yet");
    CaptionStrip strip;
    strip.setStyle(style, false);
    strip.setState(state, layer, head);
    const QSize natural = strip.layout()->sizeHint();
    if (size.logical.width() <= 0) size.logical.setWidth(natural.width());
    if (size.logical.height() <= 0) size.logical.setHeight(natural.height());
    // Offscreen and never shown: lay the tiles out at the export size before they are drawn.
    strip.resize(size.logical);
    strip.layout()->activate();
    exportWidget(strip, path, format, size);
}

void writeCaptionNpy(const CaptionState& state, int64_t layer, const std::string& path)
{
    if (state.words.empty()) throw Error("export: the caption has no words yet");
    writeNpy(path, wordPatchAttention(state.words, layer, state.prefixTokens));
}

} // namespace attn::ui
