// SPDX-License-Identifier: MIT
#pragma once
#include "model/model_source.h"
#include "model/vision_model.h"

#include <memory>
#include <string>

namespace attn {

class WeightReader;

/// HF ViTForImageClassification / ViTModel, and DeiT (DeiTForImageClassification, ...WithTeacher, DeiTModel) from a
/// safetensors folder, with the folder's preprocessor_config.json (ViTImageProcessor defaults without one).
std::shared_ptr<VisionModel> loadVit(const ModelSource& source);
/// The same model read from `reader` under `prefix` ("encoder." in a VisionEncoderDecoder file); the caller checks
/// that every tensor of the file was used.
std::shared_ptr<VisionModel> loadVit(
    const ModelConfig& config, WeightReader& reader, const std::string& prefix, ImagePreprocessConfig preprocess);
/// The folder's preprocessor_config.json, or ViTImageProcessor defaults for this config without one.
ImagePreprocessConfig folderPreprocessConfig(const std::string& folder, const ModelConfig& config);

/// Learned patch positions [side * side, D] resized to a rows x cols grid -> [rows * cols, D], exactly as
/// HF 4.39 ViTEmbeddings.interpolate_pos_encoding: torch bicubic (A = -0.75, align_corners false, edge-clamped)
/// with scale factors (rows + 0.1) / side and (cols + 0.1) / side. Throws Error if the table is not square.
Tensor interpolatePatchPositions(const Tensor& positions, int64_t rows, int64_t cols);

} // namespace attn
