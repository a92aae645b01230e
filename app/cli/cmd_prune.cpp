// SPDX-License-Identifier: MIT
// `prune`: head importance over a corpus and the greedy pruning curve.
#include "analysis/head_importance.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/decoder_run.h"
#include "core/error.h"
#include "core/npy.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace attn::cli {

int runPrune(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "corpus", "backend", "tokenizer", "out" });
    const fs::path out = args.require("out");
    const std::string corpus = args.require("corpus");
    const DecoderRun run = openDecoder(args, "prune", true);
    const std::vector<std::vector<int64_t>> inputs = readCorpus(run, corpus);
    double reference = 0.0;
    const Tensor importance = headImportance(*run.model, inputs, run.options, &reference);
    const PruningCurve curve = greedyPruning(*run.model, inputs, importance, run.options);

    fs::create_directories(out);
    writeNpy((out / "importance.npy").string(), importance);
    nlohmann::json order = nlohmann::json::array();
    for (const HeadRef& h : curve.order)
        order.push_back({ h.layer, h.head });
    const nlohmann::json report = { { "inputs", inputs.size() }, { "unmodified_loss", -reference },
        { "importance_meaning",
            "mean log-probability of the actual next tokens (pooled over every position of every line) unmodified "
            "minus with that head removed (head mask 0), nats" },
        { "order", order }, { "removed_share", curve.removedShare }, { "loss", curve.loss }, { "accuracy", curve.accuracy },
        { "loss_meaning", "mean next-token loss (nats) with the first k heads of order removed, k = 0 .. heads" },
        { "accuracy_meaning",
            "share of predicted positions whose most likely token is the actual next one, with the first k heads of "
            "order removed" },
        { "copy_positions", curve.copyPositions }, { "copy_accuracy", curve.copyAccuracy },
        { "copy_accuracy_meaning",
            "the induction-copy task: accuracy over the copy_positions alone, the predicted positions whose two tokens "
            "ending there occurred earlier followed by the same next token (in a repeated span, its second copy); "
            "empty when there are none" } };
    std::ofstream((out / "curve.json").string()) << report.dump(1) << "\n";
    std::cout << "importance of " << importance.numel() << " heads over " << inputs.size() << " lines; unmodified loss "
              << -reference << ", all removed " << curve.loss.back() << "; wrote " << out.string() << "\n";
    return 0;
}

} // namespace attn::cli
