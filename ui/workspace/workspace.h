// SPDX-License-Identifier: MIT
#pragma once
// A workspace (.attnscope, JSON): what a person had open, so that opening it later shows the same thing: the
// model, the inputs, the selected head and tab, the shared token range, the view settings, the decoded tokens and the
// Intervene tab's ablations.
#include "intervention/head_ablation.h"
#include "plots/colormaps.h"
#include "plots/heatmap_matrix.h"
#include "plots/stats_view.h"
#include "session/sampler.h"
#include "widgets/token_link.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn::ui {

/// The generated tokens after the prompt, in order, with whether each was forced (else chosen by the sampler).
struct WorkspaceTimeline {
    std::vector<int64_t> generatedIds;
    std::vector<bool> forced;
    bool operator==(const WorkspaceTimeline&) const = default;
};

struct WorkspaceDecode {
    std::string promptText; ///< what the Decode tab's prompt line held
    std::vector<int64_t> promptIds; ///< the tokens of the prompt as run (BOS included)
    WorkspaceTimeline current; ///< the timeline shown
    std::vector<WorkspaceTimeline> branches; ///< the others of this prompt that forcing left behind, oldest first
    SamplerOptions sampler;
};

/// One entry of the Intervene tab's list, in attnscope-cli's syntax: heads "L.H,L.H", mode "zero", "mean" or
/// "scale:F". The heads are checked against the model once it is open.
struct WorkspaceAblation {
    std::string heads;
    std::string mode;
    bool operator==(const WorkspaceAblation&) const = default;
};

struct Workspace {
    std::string model; ///< absolute path of the model folder or file
    std::string input;
    std::string target; ///< encoder-decoders
    std::string attention = "self"; ///< attentionKindKey()
    std::string tab; ///< the current tab's title, without mnemonics ("Heatmap", "Decode", ...)
    int64_t layer = 0;
    int64_t head = 0;
    std::vector<int64_t> headViewHeads;
    TokenRange range; ///< the positions every view shows (older workspaces have none: all of them)
    Colormap colormap = Colormap::Viridis;
    HeatmapOptions heatmap;
    StatsView::Metric metric = StatsView::Entropy;
    WorkspaceDecode decode;
    std::vector<WorkspaceAblation> ablations; ///< in the order they were added
};

WorkspaceAblation workspaceAblation(const Ablation& ablation);

std::string workspaceToJson(const Workspace& workspace);
/// Strict: unknown keys, wrong types and inconsistent decode lists are errors naming `source`.
Workspace workspaceFromJson(const std::string& json, const std::string& source);
Workspace readWorkspaceFile(const std::string& path);
void writeWorkspaceFile(const std::string& path, const Workspace& workspace);

} // namespace attn::ui
