// SPDX-License-Identifier: MIT
#include "intervention/intervention.h"

#include "core/error.h"
#include "model/model.h"

#include <cmath>

namespace attn {

void checkIntervention(const ForwardOptions& options, int64_t layers, int64_t heads, bool edits)
{
    if (!options.intervention) return;
    if (!edits && (options.intervention->editHeads || options.intervention->editResidual))
        throw Error("head-output and residual edits (mean ablation, patching) are only supported for decoders");
    if (options.intervention->headMask.empty()) return;
    const Tensor& mask = options.intervention->headMask;
    if (mask.shape() != Shape { layers, heads })
        throw Error("head mask " + shapeToString(mask.shape()) + " does not fit the model's [" + std::to_string(layers)
            + ", " + std::to_string(heads) + "] (layers, heads)");
    for (const float m : mask.storage())
        if (!std::isfinite(m)) throw Error("head mask has a non-finite entry");
}

void expectNoIntervention(const ForwardOptions& options, const std::string& family)
{
    if (options.intervention) throw Error("head masks and interventions are not supported for " + family + " yet");
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
