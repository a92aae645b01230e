// SPDX-License-Identifier: MIT
#pragma once
// The Mechanisms pages' heatmaps of a result, labelled and made snapshots on the engine thread (MechanismsMaps).
#include "mechanisms/mechanisms_request.h"

namespace attn::ui {

/// The maps of `result` (its request's chips label them; a model's own labels, an image's patches, come first): the
/// Exact vs variant page's, and the Positions page's when the result holds that part, taken from `samePositions`
/// when given (the last result's on the same head). A long map's overviews are built here, on the engine thread.
MechanismsMaps mechanismsMaps(const MechanismsResult& result, const MechanismsMaps* samePositions = nullptr);

} // namespace attn::ui
