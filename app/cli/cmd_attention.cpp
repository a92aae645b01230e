// SPDX-License-Identifier: MIT
// `attention`: one forward pass over the input, writing every layer's attention probabilities and the logits as
// float32 .npy files with a manifest.json describing tokens, shapes and the model.
#include "cli/args.h"
#include "cli/commands.h"
#include "backend/backend.h"
#include "cli/model_args.h"
#include "core/error.h"
#include "core/npy.h"
#include "model/model_loader.h"
#include "session/session.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace attn::cli {

int runAttention(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "prompt", "text-pair", "tokens", "token-types", "decoder-tokens", "image", "pixel-values",
        "features", "backend", "out", "tokenizer", "head-mask" });
    const ModelSource source = probeModel(args.positional(0, "MODEL"));
    const ModelKind kind = source.config.kind;
    // Families with other inputs have their own branch of this command.
    if (kind == ModelKind::Vision)
        return runVisionAttention(words);
    if (kind == ModelKind::EncoderDecoder || kind == ModelKind::Speech)
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
    const TokenInput input = readTokenInput(args, tokenizer.get());

    Backend* backend = modelBackend(args);
    const std::optional<Intervention> headMask = headMaskOption(args, source.config);
    ForwardOptions options;
    options.backend = backend;
    options.intervention = headMask ? &*headMask : nullptr;
    Session session(loadModel(source), options);
    const auto r = session.prefill(input.ids, input.types);

    fs::create_directories(out);
    nlohmann::json files = nlohmann::json::array();
    for (size_t l = 0; l < r->attention.size(); ++l) {
        const std::string name = "attn.L" + std::to_string(l) + ".npy";
        writeNpy((out / name).string(), r->attention[l]);
        files.push_back({ { "path", name }, { "shape", r->attention[l].shape() },
            { "meaning", "layer " + std::to_string(l) + " self-attention probabilities [heads, query, key]" } });
    }
    if (!r->logits.empty()) {
        writeNpy((out / "logits.npy").string(), r->logits);
        files.push_back({ { "path", "logits.npy" }, { "shape", r->logits.shape() },
            { "meaning", "logits for every input position [query, vocab]" } });
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
    manifest["model"] = session.model().description();
    manifest["config"] = nlohmann::json::parse(session.model().config().toJson());
    manifest["tokenizer"] = tokenizer ? nlohmann::json(tokenizer->path()) : nlohmann::json(nullptr);
    manifest["tokens"] = tokens;
    manifest["files"] = files;
    manifest["backend"] = backend->name();
    std::ofstream((out / "manifest.json").string()) << manifest.dump(1) << "\n";
    std::cout << "wrote " << r->attention.size() << " attention layers" << (r->logits.empty() ? "" : " and logits")
              << " for " << input.ids.size() << " tokens to " << out.string() << "\n";
    return 0;
}

} // namespace attn::cli
