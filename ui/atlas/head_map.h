// SPDX-License-Identifier: MIT
#pragma once
// One answer of the Head atlas tab: every head's atlas scores, role and cluster, computed on the engine thread from the
// main input and an induction probe (attention patterns), or read from an atlas's scores.json (scores only).
#include "analysis/atlas_roles.h"
#include "analysis/head_atlas.h"
#include "analysis/head_clusters.h"
#include "intervention/layer_reuse.h"
#include "service/engine_context.h"

#include <memory>
#include <string>
#include <vector>

namespace attn::ui {

struct HeadMap {
    HeadAtlas atlas;
    Tensor signatures; ///< [heads, features]: what the clusters compare
    HeadClusters clusters;
    std::vector<AtlasRole> roles; ///< per head index (layer * heads + head)
    std::string basis; ///< what the signatures are, for the status line
};
using HeadMapPtr = std::shared_ptr<const HeadMap>;

/// Roles and `clusters` clusters of `signatures` (the slow part: the correlation of every pair of heads).
HeadMapPtr buildHeadMap(HeadAtlas atlas, Tensor signatures, int64_t clusters, std::string basis);

/// On the engine thread: the kept pass of `tokens` (under `sessionKey`) and, for probeLength > 0, the induction probe
/// of that length (seed 0), both as atlas inputs and as attention patterns.
HeadMapPtr mapHeads(EngineContext& context, const std::string& sessionKey, const std::string& modelPath,
    const std::vector<int64_t>& tokens, int64_t probeLength, int64_t clusters, const RerunHooks& hooks);

/// An atlas written by `attnscope-cli atlas` or `atlas-merge`: `path` is its scores.json or the folder holding it.
/// Clustered by the standardized scores (a scores.json has no patterns). Throws Error naming the file.
HeadMapPtr readHeadMap(const std::string& path, int64_t clusters);

} // namespace attn::ui
