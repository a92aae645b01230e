// SPDX-License-Identifier: MIT
#pragma once
// FlashAttention (Dao et al. 2022): the head tiled into query blocks of bq rows and key blocks of bk columns, with an
// online softmax, and the bytes each algorithm moves between slow (HBM) and fast (SRAM) memory.
#include "mechanisms/head_inputs.h"

#include <functional>

namespace attn {

/// Bytes (float32) read and written in slow memory.
/// Standard: read Q, K (2Td), write S (T^2), read S and write P (2T^2), read P and V (T^2 + Td), write O (Td).
/// Flash: read Q (Td) and write O (Td) and the row log-sum-exp (T) once; per visited tile read its K and V blocks.
struct AttentionIo {
    double standard = 0;
    double flash = 0;
};

/// `visited(qb, kb)`: whether tile (query block qb, key block kb) holds a visible entry (masked tiles are skipped).
AttentionIo attentionIo(
    int64_t tokens, int64_t dim, int64_t bq, int64_t bk, const std::function<bool(int64_t qb, int64_t kb)>& visited);

/// attentionIo of a causal (or, with causal false, a dense) head of `tokens` positions (the GUI's plot against T).
AttentionIo attentionIo(int64_t tokens, int64_t dim, int64_t bq, int64_t bk, bool causal);

} // namespace attn
