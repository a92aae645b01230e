// SPDX-License-Identifier: MIT
#pragma once
// One classified image: its attention (derived from the forward's queries and keys), rollout and top classes, as the
// vision view shows them.
#include "analysis/rollout.h"
#include "attention_source/attention_source.h"
#include "model/vision_model.h"

#include <QImage>

#include <memory>
#include <string>
#include <vector>

namespace attn::ui {

struct ClassScore {
    std::string label;
    double probability = 0.0;
};

struct VisionResult {
    QImage image; ///< the image as opened (shown under the overlays)
    std::string source; ///< the file it came from (an image or a pixel .npy); "" when unknown
    /// The preprocessed input [channels, H, W] that was classified (the Mechanisms tab reads its heads from it).
    std::shared_ptr<const Tensor> pixels;
    PatchGrid grid; ///< of the preprocessed input
    int64_t prefixTokens = 0;
    std::vector<std::string> tokenNames;
    /// Every layer's self-attention, derived on request from the forward's queries and keys (ARCHITECTURE.md
    /// decision 2): no [heads, T, T] is held. A view reads single rows, which costs T x headDim per head.
    std::shared_ptr<const AttentionSource> attention;
    Tensor rollout; ///< attentionRollout with mean head fusion, [T, T]
    std::vector<ClassScore> topClasses; ///< softmax of the logits, the most probable first (at most 5)

    int64_t numTokens() const { return static_cast<int64_t>(tokenNames.size()); }
    int64_t numLayers() const { return attention ? attention->numLayers() : 0; }
    int64_t numHeads() const { return attention ? attention->numHeads() : 0; }

    /// Every layer's [heads, T, T], derived and returned, never kept (streamed past the source's tile cache): what
    /// rollout, attention flow and the data export need. Run it off the GUI thread (engine jobs, export workers).
    std::vector<Tensor> layerAttention() const;

    /// Attention of token `query` to every patch (row-major over the grid) in one layer; head < 0 means the mean
    /// over heads. Throws Error for a layer, head or query outside the result.
    std::vector<float> patchAttention(int64_t layer, int64_t head, int64_t query) const;
    /// Row `query` of a [T, T] matrix over the tokens (e.g. a rollout), restricted to the patches.
    std::vector<float> rowPatches(const Tensor& matrix, int64_t query) const;
    /// Row `query` of `rollout`, restricted to the patches.
    std::vector<float> rolloutPatches(int64_t query) const { return rowPatches(rollout, query); }
    /// The patch part of a [T] vector over all tokens.
    std::vector<float> patchPart(const float* tokenValues) const;
};

using VisionResultPtr = std::shared_ptr<const VisionResult>;

/// Preprocesses `image` for `model`, classifies it and computes the rollout. The forward runs on `backend` (null: the
/// CPU); the attention it keeps is derived on the CPU attention core, since the views read it on the GUI thread, as
/// the main views' is. Throws Error on failure.
VisionResultPtr classifyImage(
    const VisionModel& model, const QImage& image, const std::string& source = {}, Backend* backend = nullptr);
/// Classifies already preprocessed pixels [channels, H, W] (e.g. a stored pixel_values.npy) as classifyImage does;
/// the image shown under the overlays is the pixels with the normalization undone. Throws Error on failure.
VisionResultPtr classifyPixels(
    const VisionModel& model, const Tensor& pixels, const std::string& source = {}, Backend* backend = nullptr);

/// Attention flow into `query` under `options`, restricted to the patches. Throws Error beyond
/// kAttentionFlowMaxTokens tokens.
std::vector<float> flowPatches(const VisionResult& result, int64_t query, const RolloutOptions& options);

} // namespace attn::ui
