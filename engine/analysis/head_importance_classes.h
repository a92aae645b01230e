// SPDX-License-Identifier: MIT
#pragma once
// Head importance and greedy pruning for image classifiers (ViT, DeiT): the drop in the log-probability of each
// image's true class when a head is removed, and the loss and classification accuracy as heads are removed least
// important first. The classifier counterpart of head_importance.h, for the same Pruning tab.
#include "analysis/head_importance.h"
#include "core/tensor.h"
#include "intervention/layer_reuse.h"
#include "model/vision_model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attn {

/// One image as the model reads it (VisionModel::preprocess) and the index of its true class.
struct LabelledImage {
    Tensor pixels;
    int64_t label = 0;
};

/// What the classifier makes of a set of images.
struct ClassScore {
    double logProb = 0.0; ///< mean log-probability of the true classes (nats)
    double accuracy = 0.0; ///< share of images whose most likely class (first on ties) is the true one
};

/// The score of `images` under `headMask` (empty: none). Throws Error when there are no images or a label is not one
/// of the model's classes.
ClassScore classScore(const VisionModel& model, const std::vector<LabelledImage>& images, const Tensor& headMask,
    const ForwardOptions& base);

/// [layers, heads]: classScore(unmodified).logProb - classScore(head removed).logProb, one full pass per head and
/// image (encoders have no kept prefix to resume from; a demo ViT pass takes milliseconds). *unmodified receives the
/// first term when not null. hooks.layerDone gets (passes done, images x (1 + heads)); hooks.cancelRequested is
/// polled inside the passes; either stops it with Cancelled.
Tensor classHeadImportance(const VisionModel& model, const std::vector<LabelledImage>& images,
    const ForwardOptions& base, double* unmodified = nullptr, const RerunHooks& hooks = {});

/// greedyPruning for a classifier: heads removed in pruningOrder(importance), after each removal the mean loss
/// (-log-probability of the true class) and the classification accuracy. copyPositions stays 0. hooks over
/// (heads + 1) x images passes.
PruningCurve classPruning(const VisionModel& model, const std::vector<LabelledImage>& images, const Tensor& importance,
    const ForwardOptions& base, const RerunHooks& hooks = {});

/// The class a file name names, the way the bundled samples carry their ground truth ("sample_4_triangle.png"):
/// the one label of `model` that occurs in the file's name (its folders ignored) as a whole word, words being runs
/// of letters and digits, case ignored. -1 when none does, or more than one.
int64_t labelInFileName(const VisionModel& model, const std::string& path);

} // namespace attn
