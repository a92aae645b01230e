// SPDX-License-Identifier: MIT
#include "intervention/head_ablation.h"

#include "core/error.h"
#include "intervention/list_syntax.h"

#include <charconv>
#include <cmath>
#include <map>

namespace attn {

std::vector<HeadRef> parseHeads(const std::string& text, const ModelConfig& config)
{
    std::vector<HeadRef> heads;
    const std::string context = "heads \"" + text + "\"";
    forEachCommaItem(text, [&](std::string_view item) {
        const size_t dot = item.find('.');
        if (dot == std::string_view::npos)
            throw Error(context + ": expected LAYER.HEAD, got \"" + std::string(item) + "\"");
        const HeadRef h { parseIndex(item.substr(0, dot), context, "a layer or head index"),
            parseIndex(item.substr(dot + 1), context, "a layer or head index") };
        if (h.layer >= config.numLayers || h.head >= config.numHeads)
            throw Error(context + ": " + std::string(item) + " is outside the model's "
                + std::to_string(config.numLayers) + " layers x " + std::to_string(config.numHeads) + " heads");
        heads.push_back(h);
    });
    return heads;
}

void parseAblationMode(const std::string& text, Ablation& ablation)
{
    if (text == "zero") {
        ablation.mode = AblationMode::Zero;
        return;
    }
    if (text == "mean") {
        ablation.mode = AblationMode::Mean;
        return;
    }
    if (text.rfind("scale:", 0) == 0) {
        const std::string number = text.substr(6);
        float factor = 0.0f;
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), factor);
        if (ec == std::errc() && end == number.data() + number.size() && std::isfinite(factor)) {
            ablation.mode = AblationMode::Scale;
            ablation.factor = factor;
            return;
        }
    }
    throw Error("ablation mode \"" + text + "\": expected zero, mean or scale:F");
}

Tensor headMaskWith(const std::vector<HeadRef>& heads, float value, const ModelConfig& config)
{
    Tensor mask({ config.numLayers, config.numHeads });
    mask.storage().assign(static_cast<size_t>(mask.numel()), 1.0f);
    for (const HeadRef& h : heads)
        mask.data()[h.layer * config.numHeads + h.head] = value;
    return mask;
}

Intervention ablationIntervention(const Ablation& ablation, const ModelConfig& config)
{
    Intervention intervention;
    if (ablation.mode != AblationMode::Mean) {
        intervention.headMask
            = headMaskWith(ablation.heads, ablation.mode == AblationMode::Zero ? 0.0f : ablation.factor, config);
        return intervention;
    }
    std::map<int64_t, std::vector<int64_t>> byLayer;
    for (const HeadRef& h : ablation.heads)
        byLayer[h.layer].push_back(h.head);
    const int64_t dv = config.headDim;
    intervention.editsFromLayer = byLayer.empty() ? config.numLayers : byLayer.begin()->first;
    intervention.editHeads = [byLayer, dv](int64_t layer, Tensor& merged) {
        const auto it = byLayer.find(layer);
        if (it == byLayer.end()) return;
        const int64_t n = merged.dim(0), width = merged.dim(1);
        for (const int64_t head : it->second)
            for (int64_t c = head * dv; c < (head + 1) * dv; ++c) {
                double sum = 0.0;
                for (int64_t i = 0; i < n; ++i)
                    sum += merged.data()[i * width + c];
                const auto mean = static_cast<float>(sum / static_cast<double>(n));
                for (int64_t i = 0; i < n; ++i)
                    merged.data()[i * width + c] = mean;
            }
    };
    return intervention;
}

} // namespace attn
