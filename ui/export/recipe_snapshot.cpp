// SPDX-License-Identifier: MIT
#include "export/recipe_snapshot.h"

#include "controller/attention_provider.h"
#include "core/error.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "session/session.h"
#include "tokenizer/tokenizer_loader.h"

namespace attn::ui {

namespace {

bool keepGoing(int, int)
{
    return true;
}

SnapshotPtr runTokenIds(const FigureRecipe& recipe)
{
    const ModelSource source = probeModel(recipe.model);
    std::unique_ptr<Tokenizer> tokenizer;
    try {
        tokenizer = loadTokenizer(source);
    } catch (const Error&) {
        // Ids need no tokenizer; the labels fall back to "#id".
    }
    Session session(loadModel(source));
    const auto result = session.prefill(recipe.tokens);
    std::vector<TokenChip> chips;
    for (int64_t id : recipe.tokens)
        chips.push_back({ tokenizer ? tokenizer->tokenText(id) : "#" + std::to_string(id), id,
            tokenizer && tokenizer->isSpecial(id) });
    MaskSpec mask;
    if (session.isDecoder()) {
        mask.causal = true;
        mask.slidingWindow = session.model().config().slidingWindow;
    }
    return std::make_shared<const AttentionSnapshot>(
        std::move(chips), result->attention, session.model().config().numKvHeads, std::move(mask));
}

} // namespace

SnapshotPtr computeRecipeSnapshot(const FigureRecipe& recipe)
{
    if (recipe.model.empty()) throw Error("no model given (MODEL or the recipe's \"model\")");
    if (!recipe.prompt.empty() && !recipe.tokens.empty())
        throw Error("give the input as a prompt or as token ids, not both");
    if (!recipe.tokens.empty()) return runTokenIds(recipe);
    if (recipe.prompt.empty()) throw Error("no input given (--prompt, --tokens or the recipe's \"prompt\"/\"tokens\")");
    return openEngineProvider(recipe.model, keepGoing)->run(recipe.prompt, keepGoing);
}

} // namespace attn::ui
