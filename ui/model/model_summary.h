// SPDX-License-Identifier: MIT
#pragma once
#include "model/model_source.h"

#include <cstdint>
#include <string>

namespace attn::ui {

/// What the model info panel shows about a loaded model.
struct ModelSummary {
    std::string path;
    std::string format; ///< "Hugging Face folder" or "llama2.c checkpoint"
    ModelConfig config;
    std::string dtype; ///< stored weight dtype(s), e.g. "F32" or "F16"
    int64_t parameters = 0; ///< stored weight elements; 0 when the file has no weights
    std::string backend; ///< where the attention is computed, e.g. "cpu"

    /// "Key: value" lines for the info panel.
    std::string text() const;
};

/// Describes `source`: counts the stored parameters and dtypes from the weight file headers (nothing is loaded).
/// Throws Error naming the file on a malformed weight file.
ModelSummary summarizeModel(const ModelSource& source, const std::string& backend);

} // namespace attn::ui
