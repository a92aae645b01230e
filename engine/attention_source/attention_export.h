// SPDX-License-Identifier: MIT
#pragma once
// Full-data export of derived attention: one attn.L{l}.npy [heads, rows, cols] per selected layer, streamed to disk
// row block by row block, so a whole model's attention at thousands of tokens never sits in memory.
#include "attention_source/attention_source.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace attn {

/// Which part to write: layers and query heads (in the given order), query rows [q0, q1), key columns [k0, k1).
struct AttentionSelection {
    std::vector<int64_t> layers;
    std::vector<int64_t> heads;
    int64_t q0 = 0, q1 = 0, k0 = 0, k1 = 0;
};

/// Every layer and head, every row and column of `source`.
AttentionSelection wholeSelection(const AttentionSource& source);
/// Throws Error naming the first layer, head or range outside `source`.
void checkSelection(const AttentionSource& source, const AttentionSelection& selection);
/// Bytes exportAttention() writes: what to tell the user before it starts.
uint64_t attentionExportBytes(const AttentionSelection& selection);
/// "attn.L5.npy"
std::string attentionFileName(int64_t layer);

/// Writes the selection into `dir` (which must exist), layer by layer; `layerDone(l)` after each file. Returns the
/// file names in layer order. Throws Error on a bad selection or a failed write.
std::vector<std::string> exportAttention(const AttentionSource& source, const AttentionSelection& selection,
    const std::string& dir, const std::function<void(int64_t layer)>& layerDone = {});

} // namespace attn
