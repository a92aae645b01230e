// SPDX-License-Identifier: MIT
#pragma once
// FlashAttention (Dao et al. 2022): the head tiled into query blocks of bq rows and key blocks of bk columns, with an
// online softmax, and the bytes each algorithm moves between slow (HBM) and fast (SRAM) memory.
#include "mechanisms/head_inputs.h"

#include <functional>
#include <vector>

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

/// The tiled pass (blocks of bq query rows and bk keys, online softmax) on query rows `rows` only. Each row's online
/// softmax is its own, so these rows' outputs, running max and sum are exactly those of the whole pass; the tiles are
/// still the whole head's (one is visited when any row of its query block sees any of its keys).
struct FlashRows {
    std::vector<int64_t> rows;
    Mat out; ///< [rows, d]
    Mat runningMax,
        runningSum; ///< [key blocks, rows]: each row's m and l after key block b (a skipped tile keeps them)
    Eigen::VectorXd lse; ///< [rows]: m + log l, -inf for a row that sees no key
    int64_t tilesVisited = 0; ///< of the whole head
    AttentionIo io; ///< of the whole head
};

/// Throws Error for a block size below 1 or rows that are not ascending inside [0, T).
FlashRows flashAttentionRows(const HeadInputs& inputs, int64_t bq, int64_t bk, const std::vector<int64_t>& rows);

} // namespace attn
