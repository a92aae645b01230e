// SPDX-License-Identifier: MIT
#pragma once
// The role of every head on the head map, read from its atlas scores by a fixed rule (shown in the UI), and the
// scores as signatures for clustering when no attention patterns are at hand (an atlas opened from scores.json).
#include "analysis/head_atlas.h"

#include <string>
#include <vector>

namespace attn {

/// In the order the rule tries them.
enum class AtlasRole { Induction, PreviousToken, DuplicateToken, FirstToken, Mixed };
constexpr int kAtlasRoles = 5;

/// "induction", "previous token", "duplicate token", "first token (sink)", "mixed".
const std::string& atlasRoleName(AtlasRole role);
/// The rule, one sentence with its thresholds.
const std::string& atlasRoleRule();

/// Per head index (layer * heads + head): the first role whose score reaches its threshold (a NaN score, no
/// qualifying query, never does), else Mixed.
std::vector<AtlasRole> atlasRoles(const HeadAtlas& atlas);

/// [layers * heads, scores]: each atlas score standardized over the heads (NaN and a constant score give 0).
Tensor scoreSignatures(const HeadAtlas& atlas);

} // namespace attn
