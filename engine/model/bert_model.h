// SPDX-License-Identifier: MIT
#pragma once
#include "model/model.h"
#include "model/model_source.h"

#include <memory>

namespace attn {

/// BertForMaskedLM (logits from the MLM head) or a bare BertModel (no logits) from a safetensors folder.
std::shared_ptr<EncoderModel> loadBert(const ModelSource& source);

} // namespace attn
