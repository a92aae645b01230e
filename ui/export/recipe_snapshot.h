// SPDX-License-Identifier: MIT
#pragma once
#include "export/figure_recipe.h"
#include "model/attention_snapshot.h"

namespace attn::ui {

/// Runs the recipe's model over its input on the CPU reference core and returns the attention the GUI would show:
/// a prompt goes through the same engine provider as the GUI; token ids are run as given (labels from the model's
/// tokenizer when it has one, "#id" otherwise). Throws Error naming the model or the input on failure.
SnapshotPtr computeRecipeSnapshot(const FigureRecipe& recipe);

} // namespace attn::ui
