// SPDX-License-Identifier: MIT
#pragma once
// What the vision subcommands (classify, attention, rollout) share: the model and its input pixels.
#include "cli/args.h"
#include "core/tensor.h"
#include "model/vision_model.h"

#include <memory>
#include <string>

namespace attn::cli {

/// Loads MODEL and checks that it is a vision model (throws attn::Error naming the path otherwise).
std::shared_ptr<const VisionModel> loadVisionModel(const std::string& path);

/// Exactly one of --image FILE (decoded, then the model's preprocessing) or --pixel-values FILE.npy
/// ([C, H, W] or [1, C, H, W], already preprocessed). Throws UsageError for neither or both.
Tensor pixelInput(const Args& args, const VisionModel& model);

} // namespace attn::cli
