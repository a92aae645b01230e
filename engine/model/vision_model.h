// SPDX-License-Identifier: MIT
#pragma once
// The vision family: image classifiers whose tokens are a few prefix tokens followed by image patches.
#include "model/model.h"
#include "vision/preprocess.h"

#include <string>
#include <vector>

namespace attn {

/// The patch grid of one input: token prefixTokens + r * cols + c is patch (r, c).
struct PatchGrid {
    int64_t rows = 0;
    int64_t cols = 0;
    int64_t patches() const { return rows * cols; }
};

/// ViT-style classifiers (HF ViTForImageClassification, DeiT). One pass over the whole image, no session state.
class VisionModel : public Model {
public:
    /// pixelValues [channels, H, W] as preprocess() makes it; H and W need not be the training size (learned
    /// positions are then interpolated bicubically, as HF's interpolate_pos_encoding does).
    /// Result: logits [1, num_labels] (one row, for the image; empty for a model without a classifier);
    /// attention per layer [heads, T, T] with T = prefixTokens() + patches; hidden states (when asked)
    /// numLayers + 1 entries [T, hidden], index 0 = embeddings, the last BEFORE the final layernorm (as HF reports
    /// it for ViT); tokens stays empty. Throws Error for a wrong channel count or an image smaller than a patch.
    virtual StepResult classify(const Tensor& pixelValues, const ForwardOptions& options) const = 0;
    /// The encoder alone, as the image side of an image-to-text model: classify()'s attention and hidden states
    /// (no logits), and in *lastHidden the final sequence after the final layernorm [T, hidden] (HF's
    /// last_hidden_state).
    virtual StepResult encodeImage(const Tensor& pixelValues, const ForwardOptions& options, Tensor* lastHidden) const
        = 0;

    /// Tokens before the patches: 1 ([CLS]) for ViT, 2 ([CLS], distillation) for DeiT.
    virtual int64_t prefixTokens() const = 0;
    /// The patch grid for an input of this size (the patch convolution drops partial patches at the edges).
    PatchGrid patchGrid(int64_t height, int64_t width) const;
    /// Names of the T tokens for an input of this size: "[CLS]", "[DIST]", then "patch r,c".
    std::vector<std::string> tokenNames(int64_t height, int64_t width) const;

    /// The image preprocessing of this model (its preprocessor_config.json, or ViTImageProcessor defaults).
    const ImagePreprocessConfig& preprocessConfig() const { return m_preprocess; }
    /// preprocessImage(image, preprocessConfig()).
    Tensor preprocess(const ImageBuffer& image) const;
    int64_t numLabels() const { return static_cast<int64_t>(m_config.labels.size()); }
    /// id2label[i], or "LABEL_i" where the config names none.
    std::string label(int64_t i) const;

protected:
    VisionModel(ModelConfig config, ImagePreprocessConfig preprocess);
    ImagePreprocessConfig m_preprocess;
};

} // namespace attn
