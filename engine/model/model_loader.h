// SPDX-License-Identifier: MIT
#pragma once
#include "model/model.h"
#include "model/model_source.h"

#include <memory>
#include <string>

namespace attn {

/// The family implementation for a probed source: a DecoderModel (gpt2, llama, mistral, qwen2, llama2.c) or an
/// EncoderModel (bert). Throws Error naming the file for missing or mis-shaped tensors and for model types that
/// have a config parser but no implementation yet.
std::shared_ptr<Model> loadModel(const ModelSource& source);

/// probeModel(path) then loadModel.
std::shared_ptr<Model> loadModel(const std::string& path);

} // namespace attn
