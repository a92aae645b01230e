// SPDX-License-Identifier: MIT
#pragma once
#include "model/model_source.h"
#include "model/seq2seq_model.h"

#include <memory>

namespace attn {

/// MarianMT, BART and Whisper (HF BART-style tensor names) from a safetensors folder.
std::shared_ptr<EncoderDecoderModel> loadBartFamily(const ModelSource& source);

/// T5ForConditionalGeneration (relu or gated feed-forward, tied or separate LM head).
std::shared_ptr<EncoderDecoderModel> loadT5(const ModelSource& source);

} // namespace attn
