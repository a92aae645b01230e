// SPDX-License-Identifier: MIT
#pragma once
// GGUF files (llama.cpp, Ollama, LM Studio) as models: llama.cpp's metadata keys and tensor names mapped to the
// model description and to the families' weights.
#include "model/model.h"
#include "model/model_source.h"

#include <memory>
#include <string>

namespace attn {

class GgufFile;

/// The description from `<arch>.*` and `tokenizer.ggml.*` metadata. A vocab-only file (no tensors) is described
/// too, so that it can tokenize; loading it as a model is refused.
ModelConfig ggufModelConfig(const GgufFile& file);
/// probeModel() for a .gguf file.
ModelSource probeGguf(const std::string& path);

/// The model of a GGUF file: architectures llama (incl. Mistral-style dense and Mixtral-style merged-expert files),
/// qwen2, gemma, gemma2 and phi3 run on the Llama forward, gpt2 on GPT-2's; RoPE scaled linearly, by YaRN, by
/// rope_freqs.weight (Llama 3.1) or by phi3's longrope factors. Throws Error naming the file for other architectures, shared or
/// per-tensor experts, other RoPE scalings, tensors that are missing, mis-shaped or left unused, and weights whose
/// resident size exceeds the memory available.
std::shared_ptr<Model> loadGgufModel(const ModelSource& source);

} // namespace attn
