// SPDX-License-Identifier: MIT
// `atlas` and `atlas-merge`: the head atlas scores of a prompt, a probe or a (sharded) corpus, and merging shards.
#include "analysis/head_atlas.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/decoder_run.h"
#include "cli/model_args.h"
#include "core/error.h"
#include "core/npy.h"
#include "session/session.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace fs = std::filesystem;

namespace attn::cli {
namespace {

/// "I/N" with 0 <= I < N.
std::pair<int64_t, int64_t> parseShard(const std::string& text)
{
    const size_t slash = text.find('/');
    try {
        if (slash != std::string::npos) {
            const int64_t i = std::stoll(text.substr(0, slash)), n = std::stoll(text.substr(slash + 1));
            if (n >= 1 && i >= 0 && i < n) return { i, n };
        }
    } catch (const std::exception&) {
    }
    throw UsageError("--shard \"" + text + "\": expected I/N with 0 <= I < N");
}

void writeAtlas(const HeadAtlas& atlas, const fs::path& out)
{
    fs::create_directories(out);
    std::ofstream((out / "scores.json").string()) << atlas.toJson() << "\n";
    for (int s = 0; s < kAtlasScores; ++s)
        writeNpy((out / (atlasScoreNames()[static_cast<size_t>(s)] + ".npy")).string(),
            atlas.score(static_cast<AtlasScore>(s)));
}

} // namespace

int runAtlas(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "prompt", "tokens", "corpus", "shard", "induction-probe", "seed", "backend", "tokenizer", "out" });
    const fs::path out = args.require("out");
    const int sources = int(args.has("prompt")) + int(args.has("tokens")) + int(args.has("corpus"));
    if (sources > 1) throw UsageError("give at most one of --prompt, --tokens and --corpus");
    if (sources == 0 && !args.has("induction-probe"))
        throw UsageError("give --prompt, --tokens, --corpus or --induction-probe N");
    if (args.has("shard") && !args.has("corpus")) throw UsageError("--shard goes with --corpus");
    const DecoderRun run = openDecoder(args, "atlas", args.has("prompt") || args.has("corpus"));
    const ModelConfig& c = run.model->config();

    std::vector<std::vector<int64_t>> inputs;
    if (args.has("corpus")) {
        const auto [shard, shards] = parseShard(args.get("shard", "0/1"));
        inputs = readCorpus(run, args.require("corpus"), shard, shards);
    } else if (sources == 1) {
        inputs.push_back(readTokenInput(args, run.tokenizer.get()).ids);
    }
    if (args.has("induction-probe")) {
        const int64_t length = args.getInt("induction-probe", 0);
        if (length < 1 || 2 * length + 1 > c.maxPositions)
            throw UsageError("--induction-probe N needs 1 <= 2N + 1 <= " + std::to_string(c.maxPositions));
        std::mt19937_64 rng(static_cast<uint64_t>(args.getInt("seed", 0)));
        inputs.push_back(inductionProbe(length, c.vocabSize, c.bosTokenId, c.eosTokenId, rng));
    }
    HeadAtlas atlas(c.numLayers, c.numHeads);
    Session session(run.model, run.options);
    for (const std::vector<int64_t>& ids : inputs) {
        if (ids.empty()) continue;
        session.reset();
        atlas.add(ids, session.prefill(ids)->attention);
    }
    writeAtlas(atlas, out);
    std::cout << "atlas of " << atlas.inputs() << " inputs written to " << out.string() << "\n";
    return 0;
}

int runAtlasMerge(const std::vector<std::string>& words)
{
    const Args args(words, {});
    args.allowOnly({ "out" });
    const fs::path out = args.require("out");
    if (args.positionals().empty()) throw UsageError("give the shard directories to merge");
    std::optional<HeadAtlas> merged;
    for (const std::string& dir : args.positionals()) {
        const std::string path = (fs::path(dir) / "scores.json").string();
        std::ifstream in(path);
        if (!in) throw Error(path, "cannot open");
        std::stringstream text;
        text << in.rdbuf();
        const HeadAtlas shard = HeadAtlas::fromJson(text.str(), path);
        if (merged)
            merged->merge(shard);
        else
            merged = shard;
    }
    writeAtlas(*merged, out);
    std::cout << "merged " << args.positionals().size() << " atlases (" << merged->inputs() << " inputs) into "
              << out.string() << "\n";
    return 0;
}

} // namespace attn::cli
