// SPDX-License-Identifier: MIT
#pragma once
#include "model/model.h"
#include "model/model_source.h"

#include <cstdint>
#include <memory>
#include <string>

namespace attn {

/// The implementation of a probed source, from its family's registration (family_registry.h). Throws Error naming
/// the file for missing or mis-shaped tensors.
std::shared_ptr<Model> loadModel(const ModelSource& source);

/// How many times loadModel(source) has run in this process: what "one copy of each model" is tested by.
uint64_t modelLoads();

/// probeModel(path) then loadModel.
std::shared_ptr<Model> loadModel(const std::string& path);

} // namespace attn
