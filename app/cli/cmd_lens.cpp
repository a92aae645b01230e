// SPDX-License-Identifier: MIT
// `lens`: the logit lens of a decoder input, what the residual stream predicts after each layer.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/decoder_run.h"
#include "cli/model_args.h"
#include "core/npy.h"
#include "intervention/logit_lens.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace attn::cli {

int runLens(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "prompt", "tokens", "top-k", "backend", "tokenizer", "out" });
    const fs::path out = args.require("out");
    const DecoderRun run = openDecoder(args, "lens", args.has("prompt"));
    const TokenInput input = readTokenInput(args, run.tokenizer.get());
    const int64_t k = args.getInt("top-k", 5);
    if (k < 1) throw UsageError("--top-k must be at least 1");
    const ReusableRun kept(*run.model, input.ids, run.options);
    const LogitLens lens = logitLens(kept, k);

    fs::create_directories(out);
    writeNpy((out / "chosen_probability.npy").string(), lens.chosenProbability);
    nlohmann::json layers = nlohmann::json::array();
    for (size_t l = 0; l < lens.top.size(); ++l) {
        nlohmann::json positions = nlohmann::json::array();
        for (const auto& top : lens.top[l]) {
            nlohmann::json row = nlohmann::json::array();
            for (const TopToken& t : top)
                row.push_back({ { "id", t.id }, { "text", tokenLabel(run, t.id) }, { "probability", t.probability } });
            positions.push_back(row);
        }
        layers.push_back(positions);
    }
    nlohmann::json chosen = nlohmann::json::array();
    for (const int64_t id : lens.chosen)
        chosen.push_back({ { "id", id }, { "text", tokenLabel(run, id) } });
    const nlohmann::json report = { { "layers_meaning",
                                        "layers[l][position]: top tokens read from the residual stream after l layers "
                                        "(0: the embeddings; the last: the model's output) through the final norm "
                                        "and unembedding" },
        { "chosen", chosen }, { "layers", layers } };
    std::ofstream((out / "lens.json").string()) << report.dump(1) << "\n";
    std::cout << "logit lens of " << input.ids.size() << " tokens over " << lens.top.size() - 1 << " layers; wrote "
              << out.string() << "\n";
    return 0;
}

} // namespace attn::cli
