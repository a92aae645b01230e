// SPDX-License-Identifier: MIT
#pragma once
// HF ViTImageProcessor (and the processors that share its fields): 8-bit image -> normalized [C, H, W] floats.
#include "core/tensor.h"
#include "vision/image_buffer.h"
#include "vision/pil_resize.h"

#include <string>
#include <vector>

namespace attn {

struct ImagePreprocessConfig {
    int64_t channels = 3; ///< the model's num_channels (1 or 3)
    bool doResize = true;
    int64_t height = 224;
    int64_t width = 224;
    ResampleFilter resample = ResampleFilter::Bilinear;
    bool doCenterCrop = false; ///< DeiTImageProcessor: resize, then crop the centre
    int64_t cropHeight = 0;
    int64_t cropWidth = 0;
    bool doRescale = true;
    double rescaleFactor = 1.0 / 255.0;
    bool doNormalize = true;
    std::vector<double> mean { 0.5, 0.5, 0.5 }; ///< one per channel
    std::vector<double> std { 0.5, 0.5, 0.5 };
};

/// ViTImageProcessor's defaults (bilinear, 1/255, mean = std = 0.5) for a model with `channels` channels whose
/// training size is `imageSize`: what a model folder without preprocessor_config.json gets.
ImagePreprocessConfig defaultPreprocessConfig(int64_t channels, int64_t imageSize);

/// Parses preprocessor_config.json text (ViTImageProcessor / DeiTImageProcessor fields); fields it lacks keep
/// defaultPreprocessConfig's values. `size` and `crop_size` are {height, width} or an integer. A single mean/std
/// value is broadcast to every channel. Throws Error naming `source` on malformed JSON, wrong types, a mean/std
/// count that fits neither 1 nor `channels`, a zero std, or an aspect-preserving {shortest_edge} size.
ImagePreprocessConfig parsePreprocessConfigText(
    const std::string& text, const std::string& source, int64_t channels, int64_t imageSize);
ImagePreprocessConfig parsePreprocessConfig(const std::string& path, int64_t channels, int64_t imageSize);

/// The model input [channels, H, W] for an image: channel conversion (convertChannels), PIL resize in 8 bits,
/// centre crop, then, in float32 as HF does it, x * rescaleFactor and (x - mean) / std per channel. Throws Error
/// when the crop is larger than the (resized) image: HF would zero-pad there, which is not implemented.
Tensor preprocessImage(const ImageBuffer& image, const ImagePreprocessConfig& config);

} // namespace attn
