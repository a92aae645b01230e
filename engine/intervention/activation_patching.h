// SPDX-License-Identifier: MIT
#pragma once
// Activation patching (denoising): run the corrupted prompt with one activation taken from the clean run and measure
// how much of the clean-corrupted logit difference that single activation restores.
#include "core/tensor.h"
#include "model/model.h"

#include <cstdint>
#include <vector>

namespace attn {

struct PatchingSetup {
    std::vector<int64_t> clean, corrupted; ///< prompts of the same length
    int64_t answer = 0; ///< the token the clean prompt should predict next
    int64_t wrong = 0; ///< the token the corrupted prompt should predict instead
};

/// The logit difference LD = logit[answer] - logit[wrong] at the last position of each run, and per patch the share
/// of it restored: (LD(patched) - LD(corrupted)) / (LD(clean) - LD(corrupted)); 1 = the patch alone recovers the clean
/// behaviour, 0 = no effect.
struct PatchingResult {
    double cleanDifference = 0.0;
    double corruptedDifference = 0.0;
    /// [layers, heads]: the corrupted run with head h's output of layer l (its slice of the output projection's
    /// input, at every position) taken from the clean run.
    Tensor heads;
    /// [layers, positions]: the corrupted run with the residual stream after layer l at position p taken from the
    /// clean run.
    Tensor residual;
};

/// Runs the clean and corrupted prompts and every single-head and single-(layer, position) patch on a fresh cache
/// each, with `base`'s backend and layerDone (attention capture off). Throws Error when the prompts are empty, differ
/// in length, or the tokens are outside the vocabulary, or when LD(clean) == LD(corrupted) (nothing to restore).
PatchingResult activationPatching(const DecoderModel& model, const PatchingSetup& setup, const ForwardOptions& base);

} // namespace attn
