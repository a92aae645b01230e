// SPDX-License-Identifier: MIT
#pragma once
// Head ablation: remove, scale or mean-replace a set of attention heads, as an Intervention for a forward pass.
#include "intervention/intervention.h"
#include "model/model_config.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

enum class AblationMode {
    Zero, ///< the head's output is removed (head mask 0)
    Scale, ///< the head's output is multiplied by a factor (head mask F)
    Mean, ///< the head's output at every position is replaced by its mean over the positions of the pass
};

struct Ablation {
    std::vector<HeadRef> heads;
    AblationMode mode = AblationMode::Zero;
    float factor = 0.0f; ///< Scale only
};

/// "L.H[,L.H...]" (layer and query head, 0-based) -> heads; throws Error for bad syntax or a head the model lacks.
std::vector<HeadRef> parseHeads(const std::string& text, const ModelConfig& config);
/// "zero", "mean" or "scale:F" into `ablation`'s mode and factor; throws Error otherwise.
void parseAblationMode(const std::string& text, Ablation& ablation);

/// The intervention that performs `ablation`: a head mask for zero / scale, a head-output edit for mean.
Intervention ablationIntervention(const Ablation& ablation, const ModelConfig& config);

/// A [layers, heads] mask of ones with `heads` set to `value`.
Tensor headMaskWith(const std::vector<HeadRef>& heads, float value, const ModelConfig& config);

} // namespace attn
