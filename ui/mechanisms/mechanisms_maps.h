// SPDX-License-Identifier: MIT
#pragma once
// The Mechanisms pages' heatmaps of a result, labelled and made snapshots on the engine thread (MechanismsMaps).
#include "mechanisms/mechanisms_request.h"

namespace attn::ui {

/// The maps of `result` (its request's chips label them; a model's own labels, an image's patches, come first).
MechanismsMaps mechanismsMaps(const MechanismsResult& result);

} // namespace attn::ui
