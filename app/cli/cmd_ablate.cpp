// SPDX-License-Identifier: MIT
// `ablate`: one forward pass unmodified and one with chosen heads removed, scaled or mean-replaced, key positions
// hidden from heads or input tokens replaced, and the diff.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/decoder_run.h"
#include "cli/model_args.h"
#include "core/error.h"
#include "core/npy.h"
#include "intervention/head_ablation.h"
#include "intervention/input_edits.h"
#include "intervention/list_syntax.h"
#include "intervention/output_diff.h"
#include "session/session.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace attn::cli {
namespace {

nlohmann::json topJson(const DecoderRun& run, const std::vector<TopToken>& top)
{
    nlohmann::json out = nlohmann::json::array();
    for (const TopToken& t : top)
        out.push_back({ { "id", t.id }, { "text", tokenLabel(run, t.id) }, { "probability", t.probability } });
    return out;
}

/// `count` greedy tokens after the prefill whose result is `last`, decoded with the session's own options (so the
/// intervention stays on for every new position).
std::vector<int64_t> greedyContinuation(Session& session, std::shared_ptr<const StepResult> last, int64_t count)
{
    std::vector<int64_t> ids;
    for (int64_t i = 0; i < count; ++i) {
        const int64_t v = last->logits.dim(1);
        const float* row = last->logits.data() + (last->logits.dim(0) - 1) * v;
        ids.push_back(std::max_element(row, row + v) - row);
        last = session.step(ids.back());
    }
    return ids;
}

nlohmann::json continuationJson(const DecoderRun& run, const std::vector<int64_t>& ids)
{
    nlohmann::json out = nlohmann::json::array();
    for (const int64_t id : ids)
        out.push_back({ { "id", id }, { "text", tokenLabel(run, id) } });
    return out;
}

/// --substitute "P=TOKEN[,P=TOKEN...]", TOKEN as singleToken() reads it.
std::vector<TokenSubstitution> parseSubstitutions(const DecoderRun& run, const std::string& text)
{
    std::vector<TokenSubstitution> out;
    forEachCommaItem(text, [&](std::string_view piece) {
        const std::string item(piece);
        const size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--substitute \"" + text + "\": expected POSITION=TOKEN, got \"" + item + "\"");
        out.push_back({ parseIndex(item.substr(0, eq), "--substitute \"" + text + "\"", "a position"),
            singleToken(run, item.substr(eq + 1), "substitute") });
    });
    return out;
}

/// The key mask of --mask-keys / --mask-keys-heads (no positions: none).
std::vector<KeyMask> keyMasks(const Args& args, const ModelConfig& config, int64_t length)
{
    if (!args.has("mask-keys")) return {};
    KeyMask mask;
    mask.positions = parseKeyPositions(args.require("mask-keys"), length);
    if (args.has("mask-keys-heads")) mask.heads = parseHeads(args.require("mask-keys-heads"), config);
    return { mask };
}

nlohmann::json headsJson(const std::vector<HeadRef>& heads)
{
    nlohmann::json out = nlohmann::json::array();
    for (const HeadRef& h : heads)
        out.push_back({ h.layer, h.head });
    return out;
}

} // namespace

int runAblate(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "prompt", "tokens", "heads", "mode", "mask-keys", "mask-keys-heads", "substitute", "top-k",
        "max-new-tokens", "backend", "tokenizer", "out" });
    const fs::path out = args.require("out");
    if (args.has("mask-keys-heads") && !args.has("mask-keys"))
        throw UsageError("--mask-keys-heads names the heads --mask-keys hides keys from; give --mask-keys too");
    if (!args.has("heads") && !args.has("mask-keys") && !args.has("substitute"))
        throw UsageError("ablate needs at least one of --heads, --mask-keys and --substitute");
    const DecoderRun run = openDecoder(args, "ablate", args.has("prompt") || args.has("substitute"));
    const ModelConfig& config = run.model->config();
    const TokenInput input = readTokenInput(args, run.tokenizer.get());
    Ablation ablation;
    if (args.has("heads")) ablation.heads = parseHeads(args.require("heads"), config);
    parseAblationMode(args.get("mode", "zero"), ablation);
    const std::vector<TokenSubstitution> substitutions = args.has("substitute")
        ? parseSubstitutions(run, args.require("substitute"))
        : std::vector<TokenSubstitution> {};
    const std::vector<int64_t> changedIds = substituteTokens(input.ids, substitutions, config.vocabSize);
    const int64_t k = args.getInt("top-k", 5);
    if (k < 1) throw UsageError("--top-k must be at least 1");
    const int64_t continuation = args.getInt("max-new-tokens", 0);
    if (continuation < 0 || static_cast<int64_t>(input.ids.size()) + continuation > config.maxPositions)
        throw UsageError("--max-new-tokens must be >= 0 and keep the input within the model's context");

    Session clean(run.model, run.options);
    const auto before = clean.prefill(input.ids);
    Intervention intervention = ablationIntervention(ablation, config);
    intervention.keyMasks = keyMasks(args, config, static_cast<int64_t>(input.ids.size()));
    ForwardOptions options = run.options;
    options.intervention = &intervention;
    Session ablated(run.model, options);
    const auto after = ablated.prefill(changedIds);

    fs::create_directories(out);
    writeNpy((out / "logits_clean.npy").string(), before->logits);
    writeNpy((out / "logits_ablated.npy").string(), after->logits);
    const Tensor kl = klPerRow(before->logits, after->logits);
    writeNpy((out / "kl.npy").string(), kl);
    for (size_t l = 0; l < before->attention.size(); ++l) {
        Tensor diff = after->attention[l];
        for (int64_t i = 0; i < diff.numel(); ++i)
            diff.data()[i] -= before->attention[l].data()[i];
        writeNpy((out / ("attn_diff.L" + std::to_string(l) + ".npy")).string(), diff);
    }
    const auto topBefore = topTokens(before->logits, k), topAfter = topTokens(after->logits, k);
    nlohmann::json positions = nlohmann::json::array();
    for (size_t i = 0; i < input.ids.size(); ++i)
        positions.push_back({ { "position", i }, { "token", input.ids[i] }, { "text", tokenLabel(run, input.ids[i]) },
            { "ablated_token", changedIds[i] }, { "kl", kl.data()[i] }, { "clean", topJson(run, topBefore[i]) },
            { "ablated", topJson(run, topAfter[i]) } });
    nlohmann::json masked = nlohmann::json::array();
    for (const KeyMask& m : intervention.keyMasks)
        masked.push_back({ { "positions", m.positions },
            { "heads", m.heads.empty() ? nlohmann::json("all") : headsJson(m.heads) } });
    nlohmann::json substituted = nlohmann::json::array();
    for (const TokenSubstitution& t : substitutions)
        substituted.push_back(
            { { "position", t.position }, { "token", t.token }, { "text", tokenLabel(run, t.token) } });
    const nlohmann::json report = { { "heads", headsJson(ablation.heads) }, { "mode", args.get("mode", "zero") },
        { "masked_keys", masked }, { "substitutions", substituted },
        { "continuation",
            { { "clean", continuationJson(run, greedyContinuation(clean, before, continuation)) },
                { "ablated", continuationJson(run, greedyContinuation(ablated, after, continuation)) } } },
        { "kl_meaning", "KL(clean || ablated) of the next-token distributions, nats, per position" },
        { "positions", positions } };
    std::ofstream((out / "topk.json").string()) << report.dump(1) << "\n";
    float worst = 0.0f;
    for (const float v : kl.storage())
        worst = std::max(worst, v);
    std::cout << "ablated " << ablation.heads.size() << " heads, " << intervention.keyMasks.size() << " key masks, "
              << substitutions.size() << " substitutions over " << input.ids.size() << " tokens: max KL " << worst
              << " nats; wrote " << out.string() << "\n";
    return 0;
}

} // namespace attn::cli
