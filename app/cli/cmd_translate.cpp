// SPDX-License-Identifier: MIT
// `translate MODEL (--prompt TEXT | --tokens IDS) [--beam K] [--max-new-tokens N]`: beam search (K = 1: greedy) and
// print the best translation.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/error.h"
#include "session/beam_search.h"
#include "session/translator.h"

#include <iostream>

namespace attn::cli {

int runTranslate(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "prompt", "tokens", "beam", "max-new-tokens", "tokenizer" });
    const Translator model(args.positional(0, "MODEL"), args.get("tokenizer", ""));
    if (args.has("prompt") == args.has("tokens"))
        throw UsageError("give the source as exactly one of --prompt TEXT or --tokens IDS");
    std::vector<int64_t> source = args.getIds("tokens");
    if (args.has("prompt")) source = model.source(args.require("prompt")).ids;
    BeamOptions options;
    options.width = args.getInt("beam", 1);
    options.maxNewTokens = args.getInt("max-new-tokens", 50);
    if (options.width < 1 || options.maxNewTokens < 1)
        throw UsageError("--beam and --max-new-tokens must be at least 1");
    options.startToken = model.startToken();
    options.eosToken = model.eosToken();
    const auto beams = beamSearch(*model.decoder(source), options);
    std::cout << model.text(beams.front().tokens) << "\n";
    return 0;
}

} // namespace attn::cli
