// SPDX-License-Identifier: MIT
#include "atlas/head_map.h"

#include "core/error.h"
#include "intervention/kept_run.h"
#include "session/session.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace attn::ui {

HeadMapPtr buildHeadMap(HeadAtlas atlas, Tensor signatures, int64_t clusters, std::string basis)
{
    HeadClusters grouped = clusterHeads(signatures, clusters);
    std::vector<AtlasRole> roles = atlasRoles(atlas);
    return std::make_shared<const HeadMap>(
        HeadMap { std::move(atlas), std::move(signatures), std::move(grouped), std::move(roles), std::move(basis) });
}

HeadMapPtr mapHeads(EngineContext& context, const std::string& sessionKey, const std::string& modelPath,
    const std::vector<int64_t>& tokens, int64_t probeLength, int64_t clusters, const RerunHooks& hooks)
{
    const std::shared_ptr<KeptRun> kept = keptRun(context, sessionKey, modelPath, tokens, hooks);
    const ModelConfig& c = kept->model->config();
    HeadAtlas atlas(c.numLayers, c.numHeads);
    HeadPatterns patterns(c.numLayers, c.numHeads);
    atlas.add(tokens, kept->run->clean().attention, hooks.cancelRequested);
    patterns.add(kept->run->clean().attention);
    std::string basis = "attention patterns on the main input (" + std::to_string(tokens.size()) + " tokens)";
    if (probeLength > 0) {
        std::mt19937_64 rng(0); // the same probe every time, so maps of one model compare
        const std::vector<int64_t> probe = inductionProbe(probeLength, c.vocabSize, c.bosTokenId, c.eosTokenId, rng);
        if (static_cast<int64_t>(probe.size()) > c.maxPositions)
            throw Error("an induction probe of " + std::to_string(probeLength) + " tokens twice exceeds the model's "
                + std::to_string(c.maxPositions) + " positions");
        ForwardOptions options = context.forwardOptions();
        options.layerDone = hooks.layerDone;
        options.cancelRequested = hooks.cancelRequested;
        Session session(kept->model, options);
        const auto probed = session.prefill(probe);
        atlas.add(probe, probed->attention, hooks.cancelRequested);
        patterns.add(probed->attention);
        basis += " and an induction probe (" + std::to_string(probeLength) + " random tokens twice)";
    }
    return buildHeadMap(std::move(atlas), patterns.features(), clusters, std::move(basis));
}

HeadMapPtr readHeadMap(const std::string& path, int64_t clusters)
{
    std::filesystem::path file(path);
    if (std::filesystem::is_directory(file)) file /= "scores.json";
    std::ifstream in(file);
    if (!in) throw Error(file.string(), "cannot open (an atlas folder holds scores.json)");
    std::stringstream text;
    text << in.rdbuf();
    HeadAtlas atlas = HeadAtlas::fromJson(text.str(), file.string());
    Tensor signatures = scoreSignatures(atlas);
    const std::string basis
        = "atlas scores of " + std::to_string(atlas.inputs()) + " inputs from " + file.string() + " (no patterns)";
    return buildHeadMap(std::move(atlas), std::move(signatures), clusters, basis);
}

} // namespace attn::ui
