// SPDX-License-Identifier: MIT
#include "vision/vision_figure_options.h"

#include "core/error.h"

#include <array>
#include <utility>

namespace attn::ui {

namespace {
const std::array<std::pair<VisionPanel, const char*>, 6> kPanels { { { VisionPanel::Maps, "maps" },
    { VisionPanel::Attention, "attention" }, { VisionPanel::Rollout, "rollout" }, { VisionPanel::Flow, "flow" },
    { VisionPanel::Heads, "heads" }, { VisionPanel::Classes, "classes" } } };
} // namespace

std::string visionPanelName(VisionPanel panel)
{
    for (const auto& [value, name] : kPanels)
        if (value == panel) return name;
    return {};
}

VisionPanel visionPanelFromName(const std::string& name)
{
    for (const auto& [value, key] : kPanels)
        if (name == key) return value;
    throw Error("unknown vision panel '" + name + "' (expected maps|attention|rollout|flow|heads|classes)");
}

std::string headFusionName(HeadFusion fusion)
{
    switch (fusion) {
    case HeadFusion::Mean:
        return "mean";
    case HeadFusion::Max:
        return "max";
    case HeadFusion::Min:
        return "min";
    }
    return {};
}

bool sameRollout(const RolloutOptions& a, const RolloutOptions& b)
{
    return a.fusion == b.fusion && a.discardRatio == b.discardRatio && a.protectedToken == b.protectedToken;
}

} // namespace attn::ui
