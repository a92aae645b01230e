// SPDX-License-Identifier: MIT
// `effect`: for one query, every key's attention weight next to the leave-one-out effect of hiding that key.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/decoder_run.h"
#include "cli/model_args.h"
#include "core/npy.h"
#include "intervention/attention_effect.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace attn::cli {
namespace {

/// NaN (a constant series) as JSON null.
nlohmann::json number(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

} // namespace

int runEffect(const std::vector<std::string>& words)
{
    const Args args(words, { "per-head" });
    args.allowOnly({ "prompt", "tokens", "query", "per-head", "backend", "tokenizer", "out" });
    const fs::path out = args.require("out");
    const DecoderRun run = openDecoder(args, "effect", args.has("prompt"));
    const TokenInput input = readTokenInput(args, run.tokenizer.get());
    const int64_t query = args.getInt("query", static_cast<int64_t>(input.ids.size()) - 1);
    const bool perHead = args.has("per-head");
    const AttentionEffect e = attentionEffect(*run.model, input.ids, query, perHead, run.options);

    fs::create_directories(out);
    writeNpy((out / "attention.npy").string(), e.attention);
    writeNpy((out / "mean_attention.npy").string(), e.meanAttention);
    writeNpy((out / "effect.npy").string(), e.effect);
    writeNpy((out / "spearman.npy").string(), e.spearman);
    if (perHead) {
        writeNpy((out / "head_effect.npy").string(), e.headEffect);
        writeNpy((out / "head_spearman.npy").string(), e.headSpearman);
    }
    nlohmann::json keys = nlohmann::json::array();
    for (int64_t j = 0; j <= query; ++j)
        keys.push_back({ { "position", j }, { "token", input.ids[static_cast<size_t>(j)] },
            { "text", tokenLabel(run, input.ids[static_cast<size_t>(j)]) },
            { "mean_attention", e.meanAttention.data()[j] }, { "effect", e.effect.data()[j] } });
    const nlohmann::json report = { { "query", query },
        { "prediction", { { "id", e.prediction }, { "text", tokenLabel(run, e.prediction) } } },
        { "log_probability", e.logProbability }, { "mean_spearman", number(e.meanSpearman) }, { "keys", keys },
        { "definitions",
            { { "prediction", "the unmodified model's most probable next token at the query (lower id on ties)" },
                { "effect",
                    "log p(prediction) unmodified minus with key j hidden from every head of every layer (exactly "
                    "zero attention, rows renormalised), nats; > 0: the key supported the prediction" },
                { "head_effect", "the same with key j hidden from head (l, h) only (--per-head)" },
                { "attention", "attention.npy [layers, heads, keys]: each head's unmodified row of the query" },
                { "spearman",
                    "Spearman rank correlation over the keys (ties share their mean rank; null/NaN when a series is "
                    "constant): spearman.npy [layers, heads] of attention[l, h] with effect, mean_spearman of the "
                    "layer-and-head mean attention with effect, head_spearman.npy of attention[l, h] with "
                    "head_effect[l, h]" } } } };
    std::ofstream((out / "effect.json").string()) << report.dump(1) << "\n";
    std::cout << "query " << query << " predicts " << tokenLabel(run, e.prediction) << " (log p " << e.logProbability
              << "); rank correlation of the mean attention with the effect " << e.meanSpearman << "; wrote "
              << out.string() << "\n";
    return 0;
}

} // namespace attn::cli
