// SPDX-License-Identifier: MIT
#pragma once
// One function per family file in this folder; family_registry.cpp lists them (the one registration line).
#include "model/family_registry.h"

namespace attn::families {

ModelFamily gpt2();
ModelFamily bert();
ModelFamily llama(); ///< llama, mistral, qwen2, olmo, mixtral (HF Llama layout)
ModelFamily gemma(); ///< gemma, gemma2
ModelFamily phi();
ModelFamily phi3();
ModelFamily gptNeox();
ModelFamily starcoder2();
ModelFamily opt();
ModelFamily llama2c();
ModelFamily vit(); ///< vit, deit
ModelFamily bartLike(); ///< marian, bart, whisper
ModelFamily t5();
ModelFamily rnnSeq2Seq();
ModelFamily visionEncoderDecoder();

} // namespace attn::families
