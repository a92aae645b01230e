// SPDX-License-Identifier: MIT
#include "cli/model_args.h"

#include "backend/backend_registry.h"
#include "core/error.h"
#include "core/npy.h"
#include "model/model.h"
#include "model/seq2seq_model.h"
#include "tokenizer/tokenizer_loader.h"

#include <iostream>

namespace attn::cli {

Backend* modelBackend(const Args& args) {
    static std::shared_ptr<Backend> keep;
    auto selection = createBackend(parseBackendChoice(args.get("backend", "auto")));
    if (!selection) throw Error(selection.error());
    if (!selection->notice.empty()) std::cerr << selection->notice << "\n";
    keep = selection->backend;
    return keep.get();
}

std::optional<Intervention> headMaskOption(const Args& args, const ModelConfig& config) {
    const std::optional<std::string> path = args.get("head-mask");
    if (!path) return std::nullopt;
    Intervention intervention;
    intervention.headMask = readNpy(*path);
    ForwardOptions options;
    options.intervention = &intervention;
    try {
        // An encoder-decoder's mask stacks its encoder, decoder and cross-attention layers (Seq2SeqHeadRows).
        if (config.numDecoderLayers > 0)
            checkIntervention(options, seq2seqHeadRows(config).rows(), seq2seqHeadRows(config).heads, false);
        else
            checkIntervention(options, config.numLayers, config.numHeads);
    } catch (const Error& e) {
        throw Error(*path, e.what());
    }
    return intervention;
}

std::unique_ptr<Tokenizer> modelTokenizer(
    const Args& args, const ModelSource& source, bool required, std::string* why) {
    try {
        return loadTokenizer(source, args.get("tokenizer", ""));
    } catch (const Error& e) {
        if (required || args.has("tokenizer")) throw;
        if (why) *why = e.what();
        return nullptr;
    }
}

TokenInput readTokenInput(const Args& args, const Tokenizer* tokenizer) {
    TokenInput in;
    if (args.has("prompt") == args.has("tokens"))
        throw UsageError("give exactly one of --prompt TEXT and --tokens IDS");
    if (args.has("tokens")) {
        if (args.has("text-pair")) throw UsageError("--text-pair goes with --prompt");
        in.ids = args.getIds("tokens");
        in.types = args.getIds("token-types");
        if (in.ids.empty()) throw UsageError("--tokens is empty");
        if (!in.types.empty() && in.types.size() != in.ids.size())
            throw UsageError("--token-types has " + std::to_string(in.types.size()) + " entries for "
                + std::to_string(in.ids.size()) + " tokens");
        return in;
    }
    if (args.has("token-types")) throw UsageError("--token-types goes with --tokens");
    if (!tokenizer) throw Error("--prompt needs a tokenizer");
    const std::vector<Token> tokens = args.has("text-pair")
        ? tokenizer->encodePair(args.require("prompt"), args.require("text-pair"))
        : tokenizer->encode(args.require("prompt"));
    for (const Token& t : tokens) {
        in.ids.push_back(t.id);
        in.types.push_back(t.typeId);
    }
    if (!args.has("text-pair")) in.types.clear();
    return in;
}

} // namespace attn::cli
