// SPDX-License-Identifier: MIT
#pragma once
// The model heads a Mechanisms request runs on, read on the engine thread: every query head of one layer of the open
// model, what labels their rows and keys, and the entropy of every head on the same input.
#include "mechanisms/mechanisms_request.h"
#include "model/model_config.h"

#include <functional>

namespace attn::ui {

struct ModelHeads {
    std::vector<HeadInputs> layer; ///< every query head of the requested layer
    std::vector<int64_t> tokenIds; ///< the model input (empty for an image)
    std::vector<std::string> queryLabels, keyLabels; ///< empty: the run's tokens label both
    HeadEntropyMap entropy; ///< every head of the model on the same input
    ModelConfig config;
    std::shared_ptr<const void> model; ///< MechanismsResult::model
};

/// Whether `a` and `b` read the same heads: one model, input, block and layer (the head, variant, tiles and groups
/// may differ).
bool sameHeads(const MechanismsRequest& a, const MechanismsRequest& b);

/// The heads of `request.layer` from request.source, the open model held by `models` rerun on the request's input
/// (`keepGoing` false stops that pass: attn::Cancelled); speech and image-to-text models read request.inputFile and
/// are loaded into the registry when no tab holds them. Throws Error when there is no such model or input, or the
/// layer is outside the model.
ModelHeads readModelHeads(
    const MechanismsRequest& request, ModelRegistry& models, const std::function<bool()>& keepGoing);

} // namespace attn::ui
