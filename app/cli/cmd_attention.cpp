// SPDX-License-Identifier: MIT
// `attention`: one forward pass over the input, writing the attention probabilities asked for (--layers, --heads,
// --rows, --cols; all by default) and the logits of those rows as float32 .npy files with a manifest.json describing tokens, shapes
// and the model. The probabilities are derived from the stored queries and keys and streamed to disk layer by layer:
// the forward never materializes layers x heads x T x T.
#include "cli/args.h"
#include "cli/commands.h"
#include "backend/backend.h"
#include "cli/model_args.h"
#include "core/error.h"
#include "core/npy.h"
#include "model/model_loader.h"
#include "attention_source/attention_export.h"
#include "session/long_input.h"
#include "session/prompt_run.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <tuple>

namespace fs = std::filesystem;

namespace attn::cli {
namespace {

/// "a:b" -> [a, b); absent: [0, n).
std::pair<int64_t, int64_t> rangeOption(const Args& args, const std::string& name, int64_t n)
{
    const auto v = args.get(name);
    if (!v)
        return { 0, n };
    const auto colon = v->find(':');
    try {
        if (colon == std::string::npos)
            throw UsageError("");
        size_t used = 0;
        const std::string a = v->substr(0, colon), b = v->substr(colon + 1);
        const int64_t lo = a.empty() ? 0 : std::stoll(a, &used);
        if (!a.empty() && used != a.size())
            throw UsageError("");
        const int64_t hi = b.empty() ? n : std::stoll(b, &used);
        if (!b.empty() && used != b.size())
            throw UsageError("");
        return { lo, hi };
    } catch (const std::exception&) {
        throw UsageError("--" + name + " expects START:END (END exclusive), got '" + *v + "'");
    }
}

/// The part of the attention the flags ask for; every layer, head, row and column by default.
AttentionSelection selectionOf(const Args& args, const AttentionSource& source)
{
    AttentionSelection s = wholeSelection(source);
    if (args.has("layers"))
        s.layers = args.getIds("layers");
    if (args.has("heads"))
        s.heads = args.getIds("heads");
    std::tie(s.q0, s.q1) = rangeOption(args, "rows", source.numQueries());
    std::tie(s.k0, s.k1) = rangeOption(args, "cols", source.numKeys());
    checkSelection(source, s);
    return s;
}

std::string byteText(uint64_t bytes)
{
    const double mb = static_cast<double>(bytes) / (1024.0 * 1024.0);
    char text[64];
    std::snprintf(text, sizeof text, "%.1f MiB", mb);
    return std::to_string(bytes) + " bytes (" + text + ")";
}

} // namespace

int runAttention(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "prompt", "text-pair", "tokens", "token-types", "decoder-tokens", "image", "pixel-values",
        "features", "backend", "out", "tokenizer", "layers", "heads", "rows", "cols", "keep-last", "head-mask" });
    ModelSource source = probeModel(args.positional(0, "MODEL"));
    const ModelKind kind = source.config.kind;
    // Families with other inputs have their own branch of this command.
    if (kind == ModelKind::Vision)
        return runVisionAttention(words);
    if (kind == ModelKind::EncoderDecoder || kind == ModelKind::Speech || kind == ModelKind::ImageToText)
        return runSeq2SeqAttention(words);
    const std::string what = source.config.modelType + " (" + modelKindName(kind) + ")";
    for (const char* option : { "decoder-tokens", "features", "image", "pixel-values" })
        if (args.has(option))
            throw Error(std::string("--") + option + " is not supported for this model: " + what);
    if (kind == ModelKind::Decoder && (args.has("token-types") || args.has("text-pair")))
        throw Error("--token-types / --text-pair are not supported for this model: " + what);
    const fs::path out = args.require("out");

    std::string noTokenizer;
    const auto tokenizer = modelTokenizer(args, source, args.has("prompt"), &noTokenizer);
    TokenInput input = readTokenInput(args, tokenizer.get());
    const LongInputPlan plan
        = planLongInput(source, static_cast<int64_t>(input.ids.size()), args.getInt("keep-last", 0));
    if (!plan.message.empty())
        std::cerr << plan.message << "\n";
    applyLongInput(plan, source, input.ids, input.types);

    Backend* backend = modelBackend(args);
    const std::optional<Intervention> headMask = headMaskOption(args, source.config);
    PromptOptions options;
    options.forward.backend = backend;
    options.forward.intervention = headMask ? &*headMask : nullptr;
    // Derived from the stored queries and keys, only what was asked; models whose scores the tiles cannot follow
    // capture the whole attention in the forward instead.
    std::string notDerivable;
    const bool derived
        = derivesAttention(source.config, static_cast<int64_t>(input.ids.size()), options, &notDerivable);
    if (!derived && (args.has("layers") || args.has("heads") || args.has("rows") || args.has("cols")))
        throw Error("--layers / --heads / --rows / --cols read derived tiles, which " + notDerivable
            + " does not allow; run without them to write every layer");
    const std::shared_ptr<const Model> model = loadModel(source);
    const PromptRun run = runPrompt(model, input.ids, input.types, options);
    const StepResult* r = run.result.get();
    const auto& attention = run.derived;
    AttentionSelection selection;
    if (attention) {
        selection = selectionOf(args, *attention);
    } else {
        for (int64_t l = 0; l < static_cast<int64_t>(r->attention.size()); ++l)
            selection.layers.push_back(l);
        for (int64_t h = 0; h < r->attention.front().dim(0); ++h)
            selection.heads.push_back(h);
        selection.q1 = r->attention.front().dim(1);
        selection.k1 = r->attention.front().dim(2);
    }

    fs::create_directories(out);
    std::cerr << "writing " << byteText(attentionExportBytes(selection)) << " of attention to " << out.string()
              << "\n";
    nlohmann::json files = nlohmann::json::array();
    const Shape shape { static_cast<int64_t>(selection.heads.size()), selection.q1 - selection.q0,
        selection.k1 - selection.k0 };
    for (const int64_t l : selection.layers)
        files.push_back({ { "path", attentionFileName(l) }, { "shape", shape }, { "layer", l },
            { "meaning", "layer " + std::to_string(l) + " self-attention probabilities [heads, query, key]" } });
    if (attention)
        exportAttention(*attention, selection, out.string());
    else
        for (size_t l = 0; l < r->attention.size(); ++l)
            writeNpy((out / attentionFileName(static_cast<int64_t>(l))).string(), r->attention[l]);
    for (size_t l = 0; l < r->routerLogits.size(); ++l) {
        const std::string name = "router.L" + std::to_string(l) + ".npy";
        writeNpy((out / name).string(), r->routerLogits[l]);
        files.push_back({ { "path", name }, { "shape", r->routerLogits[l].shape() },
            { "meaning", "layer " + std::to_string(l) + " MoE router logits [token, expert] (before softmax and top-k)" } });
    }
    if (!r->logits.empty()) {
        // The logits of the selected query rows only (all by default): 4,096 rows of GPT-2 logits are 0.8 GB.
        const int64_t vocab = r->logits.dim(1);
        const float* first = r->logits.data() + selection.q0 * vocab;
        const Tensor logits({ selection.q1 - selection.q0, vocab },
            std::vector<float>(first, first + (selection.q1 - selection.q0) * vocab));
        writeNpy((out / "logits.npy").string(), logits);
        files.push_back({ { "path", "logits.npy" }, { "shape", logits.shape() },
            { "meaning", "logits of the selected query rows [query, vocab]" } });
    }
    nlohmann::json tokens = nlohmann::json::array();
    for (size_t i = 0; i < input.ids.size(); ++i) {
        nlohmann::json t = { { "id", input.ids[i] } };
        t["text"] = tokenizer ? nlohmann::json(tokenizer->tokenText(input.ids[i])) : nlohmann::json(nullptr);
        if (!input.types.empty())
            t["type"] = input.types[i];
        tokens.push_back(t);
    }
    nlohmann::json manifest;
    manifest["model"] = model->description();
    manifest["config"] = nlohmann::json::parse(model->config().toJson());
    manifest["tokenizer"] = tokenizer ? nlohmann::json(tokenizer->path()) : nlohmann::json(nullptr);
    manifest["tokens"] = tokens;
    manifest["files"] = files;
    manifest["selection"] = { { "layers", selection.layers }, { "heads", selection.heads },
        { "rows", { selection.q0, selection.q1 } }, { "cols", { selection.k0, selection.k1 } } };
    if (!plan.message.empty())
        manifest["long_input"] = plan.message;
    manifest["backend"] = backend->name();
    std::ofstream((out / "manifest.json").string()) << manifest.dump(1) << "\n";
    std::cout << "wrote " << selection.layers.size() << " attention layers" << (r->logits.empty() ? "" : " and logits")
              << " for " << input.ids.size() << " tokens to " << out.string() << "\n";
    return 0;
}

} // namespace attn::cli
