// SPDX-License-Identifier: MIT
#pragma once
// What a vision figure shows besides the classified image: which panels, the rollout setting and the overlay look.
// Shared by the vision tab, its Export menu entry and vision recipes (`attnscope-cli export --view vision`).
#include "analysis/rollout.h"

#include <string>

namespace attn::ui {

/// Maps: attention, rollout, flow and the top-5 classes side by side (what the tab exports); Heads: the layers x heads
/// grid of attention overlays; the others: that one panel alone.
enum class VisionPanel { Maps, Attention, Rollout, Flow, Heads, Classes };

struct VisionFigureOptions {
    VisionPanel panel = VisionPanel::Maps;
    RolloutOptions rollout; ///< head fusion and discard ratio of the rollout and flow maps
    double opacity = 0.6; ///< of the overlays, 0..1
    bool smooth = false;
    bool showGrid = true; ///< patch grid lines over the large maps
};

/// maps|attention|rollout|flow|heads|classes; the parser throws Error for anything else.
std::string visionPanelName(VisionPanel panel);
VisionPanel visionPanelFromName(const std::string& name);
/// mean|max|min (parseHeadFusion reads them back).
std::string headFusionName(HeadFusion fusion);
bool sameRollout(const RolloutOptions& a, const RolloutOptions& b);

} // namespace attn::ui
