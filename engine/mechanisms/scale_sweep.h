// SPDX-License-Identifier: MIT
#pragma once
// Why 1/sqrt(d_k): for unit-variance q and k, q . k has variance d_k, so unscaled softmax rows saturate (entropy
// falls, the largest weight nears 1) as d_k grows, while scaled rows keep the same spread.
#include <cstdint>
#include <vector>

namespace attn {

struct ScalePoint {
    int64_t dk = 0;
    double entropyScaled = 0, entropyUnscaled = 0; ///< mean row entropy, nats
    double maxScaled = 0, maxUnscaled = 0; ///< mean largest weight per row
};

/// One point per d_k on synthetic inputs (syntheticHeadInputs(tokens, dk, seed)), no mask.
std::vector<ScalePoint> scaleSweep(int64_t tokens, const std::vector<int64_t>& dks, uint64_t seed);

/// 1, 2, 4, ... up to `largest` (the d_k axis of the plot).
std::vector<int64_t> powersOfTwo(int64_t largest);

} // namespace attn
