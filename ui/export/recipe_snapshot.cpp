// SPDX-License-Identifier: MIT
#include "export/recipe_snapshot.h"

#include "controller/attention_provider.h"
#include "core/error.h"
#include "export/figure_recipe.h"
#include "model/model_loader.h"
#include "model/model_source.h"
#include "service/model_registry.h"
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
    return std::make_shared<const AttentionSnapshot>(std::move(chips), result->attention,
        session.model().config().numKvHeads, std::move(mask), std::vector<TokenChip> {},
        AttentionSnapshot::Stats::Compute, layerWindows(session.model().config()));
}

} // namespace

SnapshotPtr computeRecipeSnapshot(const FigureRecipe& recipe)
{
    if (recipe.model.empty()) throw Error("no model given (MODEL or the recipe's \"model\")");
    if (!recipe.prompt.empty() && !recipe.tokens.empty())
        throw Error("give the input as a prompt or as token ids, not both");
    const bool twoSided = !recipe.target.empty() || recipe.attention != AttentionKind::Self;
    if (twoSided && !recipe.tokens.empty())
        throw Error("an encoder-decoder input is source text (--prompt; token ids as text when the model has no "
                    "tokenizer) and target text (--target), not --tokens");
    if (!recipe.tokens.empty()) return runTokenIds(recipe);
    if (recipe.prompt.empty()) throw Error("no input given (--prompt, --tokens or the recipe's \"prompt\"/\"tokens\")");
    ModelRegistry models; // a headless export: this run alone holds the model
    const auto provider = openEngineProvider(recipe.model, models, keepGoing);
    if (!twoSided) return provider->run(recipe.prompt, keepGoing);
    const RunPtr run = provider->runPair(recipe.prompt, recipe.target, keepGoing);
    const AttentionKind kind = recipe.attention == AttentionKind::Self ? AttentionKind::Cross : recipe.attention;
    std::string offered;
    for (const auto& [k, snapshot] : run->views) {
        if (k == kind) return snapshot;
        offered += (offered.empty() ? "" : ", ") + attentionKindKey(k);
    }
    throw Error(recipe.model + ": no " + attentionKindKey(kind) + " attention in this model (it has: " + offered + ")");
}

} // namespace attn::ui
