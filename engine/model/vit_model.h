// SPDX-License-Identifier: MIT
#pragma once
#include "model/layers.h"
#include "model/model_source.h"
#include "model/vision_model.h"

#include <memory>
#include <string>
#include <vector>

namespace attn {

class WeightReader;

struct VitLayer {
    Tensor ln1w, ln1b, qW, qB, kW, kB, vW, vB, oW, oB, ln2w, ln2b, iW, iB, outW, outB; ///< weights [out, in]
};

/// A linear classifier reading one token of the final sequence.
struct VitHead {
    Tensor w, b;
    int64_t token = 0;
};

/// ViT's weights. The patch kernel, projection, feed-forward and classifier matrices may be packed half, kept as
/// stored; the prefix tokens, positions (copied and interpolated) and vectors are float32.
struct VitWeights {
    Tensor patchW; ///< [D, C * P * P], the convolution kernel flattened like im2col rows
    Tensor patchB; ///< [D]
    Tensor prefix; ///< [prefixTokens, D]: cls (and distillation) tokens
    Tensor positions; ///< [prefixTokens + side * side, D]
    std::vector<VitLayer> layers;
    Tensor lnW, lnB;
    std::vector<VitHead> heads; ///< empty: no classifier; two (DeiT with teacher): logits are their mean
};

/// ViT / DeiT: patch convolution, prefix tokens ([CLS], DeiT's distillation token), learned positions, pre-LN encoder
/// blocks, final layernorm, classifier(s) on the prefix tokens.
class VitModel final : public VisionModel {
public:
    VitModel(ModelConfig config, ImagePreprocessConfig preprocess, VitWeights weights);
    int64_t prefixTokens() const override { return m_w.prefix.dim(0); }
    StepResult classify(const Tensor& pixels, const ForwardOptions& options) const override;
    StepResult encodeImage(const Tensor& pixels, const ForwardOptions& options, Tensor* lastHidden) const override;
    /// The weights as loaded (their storage: packed half or float32).
    const VitWeights& weights() const { return m_w; }

private:
    StepResult run(const Tensor& pixels, const ForwardOptions& options, Tensor* lastHidden) const;
    /// Patch convolution (stride = kernel = P) as im2col times the flattened kernel, then prefix tokens and positions.
    Tensor embed(const Tensor& pixels, const PatchGrid& grid) const;
    Tensor positionsFor(const PatchGrid& grid, bool squareImage) const;

    VitWeights m_w;
    Activation m_activation;
};

/// HF ViTForImageClassification / ViTModel, and DeiT (DeiTForImageClassification, ...WithTeacher, DeiTModel) from a
/// safetensors folder, with the folder's preprocessor_config.json (ViTImageProcessor defaults without one).
std::shared_ptr<VitModel> loadVit(const ModelSource& source);
/// The same model read from `reader` under `prefix` ("encoder." in a VisionEncoderDecoder file); the caller checks
/// that every tensor of the file was used.
std::shared_ptr<VitModel> loadVit(
    const ModelConfig& config, WeightReader& reader, const std::string& prefix, ImagePreprocessConfig preprocess);
/// The folder's preprocessor_config.json, or ViTImageProcessor defaults for this config without one.
ImagePreprocessConfig folderPreprocessConfig(const std::string& folder, const ModelConfig& config);

/// Learned patch positions [side * side, D] resized to a rows x cols grid -> [rows * cols, D], exactly as
/// HF 4.39 ViTEmbeddings.interpolate_pos_encoding: torch bicubic (A = -0.75, align_corners false, edge-clamped)
/// with scale factors (rows + 0.1) / side and (cols + 0.1) / side. Throws Error if the table is not square.
Tensor interpolatePatchPositions(const Tensor& positions, int64_t rows, int64_t cols);

} // namespace attn
