// SPDX-License-Identifier: MIT
#pragma once
// The model families. Each registers once, in its own file under engine/model/families/, how to recognize it
// (config.json model_type, or a folder layout without config.json), how to read its config, how to load it and what
// it can do. Probing, loading, `info` and the app's tabs ask this registry instead of naming families.
#include "model/config_fields.h"
#include "model/model.h"
#include "model/model_source.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attn {

struct ModelFamily {
    std::vector<std::string> modelTypes; ///< config.json model_type values it answers to (or its format's name)
    uint32_t capabilities = 0;
    /// False for RNN encoder-decoders: their one attention is the decoder's over the encoder (no self-attention, no
    /// multi-head layers), so the app reads them through their own provider and offers cross-attention only.
    bool selfAttention = true;
    /// Fills the family's fields of the config (kind included) from config.json; null for a format without one.
    std::function<void(const ConfigFields& fields, ModelConfig& config)> readConfig;
    /// Loads the weights of a probed source.
    std::function<std::shared_ptr<Model>(const ModelSource& source)> load;
    /// For a folder without config.json: its description if the folder is in this family's layout, else nullopt.
    std::function<std::optional<ModelConfig>(const std::string& folder)> probeFolder;
};

/// Every registered family, in registration order.
const std::vector<ModelFamily>& modelFamilies();
/// The family answering to `modelType`, or null.
const ModelFamily* findFamily(const std::string& modelType);
/// Whether the family that described `config` has self-attention layers (true for a model type no family answers to).
bool hasSelfAttention(const ModelConfig& config);
/// The family answering to `modelType`; throws Error naming `source` and listing the supported model types.
const ModelFamily& familyOf(const std::string& modelType, const std::string& source);

} // namespace attn
