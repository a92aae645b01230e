// SPDX-License-Identifier: MIT
// View recipes (export --recipe, File > Export): the strict parser, and a recipe that parses must survive being
// written and read back unchanged (what the app writes, it must read).
#include "export/figure_recipe.h"
#include "fuzz_target.h"

#include <string>

AS_FUZZ_TARGET(recipe)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    const attn::ui::FigureRecipe recipe = attn::ui::recipeFromJson(text, "recipe.json");
    const std::string written = attn::ui::recipeToJson(recipe);
    if (attn::ui::recipeToJson(attn::ui::recipeFromJson(written, "written recipe")) != written) __builtin_trap();
}
