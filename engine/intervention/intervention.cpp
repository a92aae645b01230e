// SPDX-License-Identifier: MIT
#include "intervention/intervention.h"

#include "core/error.h"
#include "model/model.h"

#include <algorithm>
#include <cmath>

namespace attn {

void checkIntervention(const ForwardOptions& options, int64_t layers, int64_t heads, bool edits)
{
    if (!options.intervention) return;
    if (!edits
        && (options.intervention->editHeads || options.intervention->editResidual
            || !options.intervention->keyMasks.empty()))
        throw Error("head-output and residual edits (mean ablation, patching) and key masks are only supported for "
                    "decoders");
    for (const KeyMask& k : options.intervention->keyMasks) {
        for (const int64_t p : k.positions)
            if (p < 0) throw Error("key mask: negative key position " + std::to_string(p));
        for (const HeadRef& h : k.heads)
            if (h.layer < 0 || h.layer >= layers || h.head < 0 || h.head >= heads)
                throw Error("key mask: head " + std::to_string(h.layer) + "." + std::to_string(h.head)
                    + " is outside the model's " + std::to_string(layers) + " layers x " + std::to_string(heads)
                    + " heads");
    }
    if (options.intervention->headMask.empty()) return;
    const Tensor& mask = options.intervention->headMask;
    if (mask.shape() != Shape { layers, heads })
        throw Error("head mask " + shapeToString(mask.shape()) + " does not fit the model's [" + std::to_string(layers)
            + ", " + std::to_string(heads) + "] (layers, heads)");
    for (const float m : mask.storage())
        if (!std::isfinite(m)) throw Error("head mask has a non-finite entry");
}

std::span<const float> headScaleRow(const ForwardOptions& options, int64_t layer)
{
    if (!options.intervention || options.intervention->headMask.empty()) return {};
    const Tensor& mask = options.intervention->headMask;
    const int64_t heads = mask.dim(1);
    return { mask.data() + layer * heads, static_cast<size_t>(heads) };
}

AttentionOptions withHeadScale(AttentionOptions base, const ForwardOptions& options, int64_t layer)
{
    base.headScale = headScaleRow(options, layer);
    return base;
}

Tensor keyKeepMask(const ForwardOptions& options, int64_t layer, int64_t heads, int64_t n, int64_t keys)
{
    if (!options.intervention) return {};
    std::vector<uint8_t> hidden; // [heads, keys]
    for (const KeyMask& k : options.intervention->keyMasks) {
        const auto hide = [&](int64_t head) {
            for (const int64_t p : k.positions)
                if (p < keys) {
                    hidden.resize(static_cast<size_t>(heads * keys));
                    hidden[static_cast<size_t>(head * keys + p)] = 1;
                }
        };
        for (int64_t h = 0; h < heads; ++h)
            if (k.heads.empty() || std::find(k.heads.begin(), k.heads.end(), HeadRef { layer, h }) != k.heads.end())
                hide(h);
    }
    if (hidden.empty()) return {};
    Tensor keep({ heads, n, keys });
    for (int64_t h = 0; h < heads; ++h)
        for (int64_t i = 0; i < n; ++i)
            for (int64_t j = 0; j < keys; ++j)
                keep.data()[(h * n + i) * keys + j] = hidden[static_cast<size_t>(h * keys + j)] ? 0.0f : 1.0f;
    return keep;
}

int64_t firstChangedLayer(const Intervention& intervention, int64_t layers)
{
    int64_t first = layers;
    if (intervention.editHeads || intervention.editResidual) first = std::min(first, intervention.editsFromLayer);
    const Tensor& mask = intervention.headMask;
    for (int64_t i = 0; i < mask.numel(); ++i)
        if (mask.data()[i] != 1.0f) first = std::min(first, i / mask.dim(1));
    for (const KeyMask& k : intervention.keyMasks) {
        if (k.positions.empty()) continue;
        if (k.heads.empty()) return 0;
        for (const HeadRef& h : k.heads)
            first = std::min(first, h.layer);
    }
    return std::max<int64_t>(first, 0);
}

void editHeads(Stream& s, const ForwardOptions& options, int64_t layer, const Value& heads)
{
    if (options.intervention && options.intervention->editHeads)
        s.edit(heads, [&](Tensor& t) { options.intervention->editHeads(layer, t); });
}

void editResidual(Stream& s, const ForwardOptions& options, int64_t layer, const Value& residual)
{
    if (options.intervention && options.intervention->editResidual)
        s.edit(residual, [&](Tensor& t) { options.intervention->editResidual(layer, t); });
}

} // namespace attn
