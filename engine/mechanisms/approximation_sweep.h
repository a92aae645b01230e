// SPDX-License-Identifier: MIT
#pragma once
// How a seeded approximation (Linformer's projection size k, Performer's feature count m) converges on a head: its
// error against the exact attention as the size grows, averaged over seeds.
#include "mechanisms/head_inputs.h"

#include <functional>
#include <string>
#include <vector>

namespace attn {

struct SweepPoint {
    int64_t size = 0;
    double outRelErr = 0; ///< mean over seeds of |out - reference out|_F / |reference out|_F
    double outRelErrSpread = 0; ///< standard deviation over seeds
};

/// `family` is "linformer" or "performer"; each size runs `family:size:seed` for seeds 0 .. seeds - 1. `checkpoint`
/// runs before each of those runs (each is a whole T x T attention or more): a caller stops a long sweep by throwing
/// from it.
std::vector<SweepPoint> approximationSweep(const HeadInputs& inputs, const std::string& family,
    const std::vector<int64_t>& sizes, int seeds, const std::function<void()>& checkpoint = {});

} // namespace attn
