// SPDX-License-Identifier: MIT
#pragma once
#include "model/model_config.h"

#include <string>

namespace attn {

enum class ModelFormat { HfFolder, Llama2c, Gguf };

/// What a user-given path turned out to be: the format, the description and where each part lives.
struct ModelSource {
    ModelFormat format = ModelFormat::HfFolder;
    std::string folder; ///< the model folder (tokenizer files are looked for here)
    std::string configPath; ///< config.json, empty for llama2.c and GGUF
    std::string weightsPath; ///< model.safetensors / index.json / .bin / .gguf; empty if the folder has no weights
    ModelConfig config;
};

/// Identifies PATH (an HF folder, a .safetensors or config.json inside one, a llama2.c .bin or a .gguf file).
/// Refuses pickles (.bin/.pt/.pth written by torch.save) with a message to convert them to safetensors.
/// Throws Error naming the path otherwise.
ModelSource probeModel(const std::string& path);

/// The refusal text for a pickle file (shared by every loader).
std::string pickleRefusal(const std::string& path);

} // namespace attn
