// SPDX-License-Identifier: MIT
#pragma once
// How a seeded approximation (Linformer's projection size k, Performer's feature count m) converges on a head: its
// error against the exact attention as the size grows, averaged over seeds.
#include "mechanisms/sampled_rows.h"

#include <functional>
#include <string>
#include <vector>

namespace attn {

class LinformerDraws;

struct SweepPoint {
    int64_t size = 0;
    double outRelErr = 0; ///< mean over seeds of |out - reference out|_F / |reference out|_F over the measured rows
    double outRelErrSpread = 0; ///< standard deviation over seeds
};

struct ApproximationSweep {
    std::vector<SweepPoint> points;
    int64_t rows = 0; ///< query rows measured: all of them up to the limit, else that many evenly spaced
    int64_t tokens = 0; ///< the head's query rows
};

/// `family` is "linformer" or "performer"; each size runs the draws of `family:size:seed` for seeds 0 .. seeds - 1 on
/// the rows sweepQueryRows(T, rowLimit). The exact reference (Linformer: the unmasked head) and the rows' queries,
/// mask and bias are computed once for the whole sweep. `checkpoint` runs before each draw: a caller stops a long
/// sweep by throwing from it. `draws` (null: none) keeps Linformer's projections for the next head of the same input.
/// Throws Error for a size outside [1, 4096] or a head that is not self-attention.
ApproximationSweep approximationSweep(const HeadInputs& inputs, const std::string& family,
    const std::vector<int64_t>& sizes, int seeds, int64_t rowLimit = kSweepRowLimit,
    const std::function<void()>& checkpoint = {}, LinformerDraws* draws = nullptr);

} // namespace attn
