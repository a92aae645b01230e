// SPDX-License-Identifier: MIT
#include "export/decode_figure.h"

#include "core/error.h"
#include "decode/probability_chart.h"
#include "session/decode_timeline.h"

#include <qcustomplot.h>

namespace attn::ui {

void renderDecodeFigure(const FigureRecipe& recipe, const QString& path, FigureFormat format)
{
    const auto timeline = openDecodeTimeline(recipe.model);
    DecodeTimeline& engine = *timeline;
    const std::vector<int64_t> ids = recipe.tokens.empty() ? engine.encode(recipe.prompt) : recipe.tokens;
    if (engine.prompt(ids).empty()) throw Error("export: the decode view needs an input (--prompt or --tokens)");
    // A step's candidates are the distribution its token was drawn from: the next (greedy) step shows what follows.
    const DecodeStepPtr next = engine.step();
    if (!next) throw Error("export: the model's context is full after this input; there is no next token");
    ProbabilityChart chart;
    chart.setStep(next);
    const QSize size(recipe.width > 0 ? recipe.width : 420, recipe.height > 0 ? recipe.height : 360);
    exportWidget(*chart.plot(), path, format, { size, recipe.dpi });
}

} // namespace attn::ui
