// SPDX-License-Identifier: MIT
#pragma once
// An image model's (ViT, DeiT) heads for the mechanisms: one encoder pass over preprocessed pixels with every layer's
// queries, keys and values kept, read as heads on the patch grid (the Swin windows' grid).
#include "mechanisms/head_inputs.h"
#include "model/model.h"

#include <string>
#include <vector>

namespace attn {

class VisionModel;

struct VisionHeads {
    StepResult pass; ///< classify() with ForwardOptions::wantQueryKeys (and the attention, for the entropy map)
    ModelConfig config;
    std::string origin; ///< the model's description
    int64_t gridRows = 0, gridCols = 0;
    std::vector<std::string> tokenNames; ///< [CLS], [DIST], then the patches
    /// Every query head of `layer`, with the patch grid set. Throws Error for a layer outside the model.
    std::vector<HeadInputs> layer(int64_t layer) const;
};

/// Classifies `pixels` [channels, H, W] (VisionModel::preprocess's layout). Throws Error as VisionModel::classify.
VisionHeads visionHeads(const VisionModel& model, const Tensor& pixels);

} // namespace attn
