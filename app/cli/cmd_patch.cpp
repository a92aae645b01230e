// SPDX-License-Identifier: MIT
// `patch`: activation patching from a clean into a corrupted prompt, per head and per (layer, position).
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/decoder_run.h"
#include "core/npy.h"
#include "intervention/activation_patching.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace attn::cli {

int runPatch(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "clean", "corrupted", "answer", "wrong", "backend", "tokenizer", "out" });
    const fs::path out = args.require("out");
    const DecoderRun run = openDecoder(args, "patch", true);
    PatchingSetup setup;
    setup.clean = encodeText(run, args.require("clean"), true);
    setup.corrupted = encodeText(run, args.require("corrupted"), true);
    setup.answer = singleToken(run, args.require("answer"), "answer");
    setup.wrong = singleToken(run, args.require("wrong"), "wrong");
    const PatchingResult r = activationPatching(*run.model, setup, run.options);

    fs::create_directories(out);
    writeNpy((out / "heads.npy").string(), r.heads);
    writeNpy((out / "residual.npy").string(), r.residual);
    const nlohmann::json report = { { "clean_logit_difference", r.cleanDifference },
        { "corrupted_logit_difference", r.corruptedDifference },
        { "answer", { { "id", setup.answer }, { "text", tokenLabel(run, setup.answer) } } },
        { "wrong", { { "id", setup.wrong }, { "text", tokenLabel(run, setup.wrong) } } },
        { "definition",
            "LD = logit[answer] - logit[wrong] at the last position; each entry is (LD(corrupted run with that one "
            "activation taken from the clean run) - LD(corrupted)) / (LD(clean) - LD(corrupted)): 1 restores the "
            "clean difference, 0 changes nothing. heads.npy [layers, heads]: the head's output (its slice of the "
            "output projection's input) at every position; residual.npy [layers, positions]: the residual stream "
            "after that layer at that position" } };
    std::ofstream((out / "patching.json").string()) << report.dump(1) << "\n";
    std::cout << "LD clean " << r.cleanDifference << ", corrupted " << r.corruptedDifference << "; wrote "
              << out.string() << "\n";
    return 0;
}

} // namespace attn::cli
