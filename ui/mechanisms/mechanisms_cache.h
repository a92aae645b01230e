// SPDX-License-Identifier: MIT
#pragma once
// What Mechanisms requests on one input share, kept on the engine thread between them (EngineContext::session under
// kMechanismsCacheKey, dropped with the other tabs' state when a model is opened): the model pass's heads of the
// layer with every head's entropy, the position tables, the synthetic scale sweep and the last result. A head, variant,
// tile or group switch then computes only what depends on it, not the model's pass again.
#include "mechanisms/linformer_draws.h"
#include "mechanisms/model_heads.h"

#include <memory>
#include <vector>

namespace attn::ui {

inline constexpr const char* kMechanismsCacheKey = "mechanisms";

struct MechanismsCache {
    MechanismsRequest headsInput; ///< the request `heads` was read for (sameHeads)
    std::shared_ptr<const ModelHeads> heads;
    MechanismsRequest positionsInput; ///< the request `positions` was computed for
    std::shared_ptr<const PositionTables> positions;
    int64_t sweepTokens = 0;
    uint64_t sweepSeed = 0;
    std::vector<ScalePoint> sweep; ///< the synthetic scale sweep at sweepTokens tokens and sweepSeed
    /// Linformer's projections of the sweeps: the input's length's, whichever head (a head switch draws none again)
    LinformerDraws linformerDraws;
    /// The last result (the one the tab shows): the parts it holds are the next request's when that runs on the same
    /// head (layer, for the GQA table) and only the variant, tiles, groups or page changed.
    std::shared_ptr<const MechanismsResult> last;
    /// The result before `last`, which the tab showed until `last` arrived: kept so that the tab does not drop the
    /// last reference to it, and let go here, on the engine thread, when the next request starts (at 4,096 tokens a
    /// result holds half a GiB of [T, T] matrices, whose freeing took the GUI thread about 50 ms).
    std::shared_ptr<const MechanismsResult> previous;
};

} // namespace attn::ui
