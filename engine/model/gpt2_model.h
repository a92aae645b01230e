// SPDX-License-Identifier: MIT
#pragma once
#include "model/model.h"
#include "model/model_source.h"

#include <memory>

namespace attn {

/// GPT2LMHeadModel (or a bare GPT2Model) from a safetensors folder.
std::shared_ptr<DecoderModel> loadGpt2(const ModelSource& source);

} // namespace attn
