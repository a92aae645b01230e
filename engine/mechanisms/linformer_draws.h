// SPDX-License-Identifier: MIT
#pragma once
// Linformer's seeded projections E, F depend on the projection size, the sequence length and the seed, not on the
// head: the Mechanisms tab's sweep runs every size of a seed from one draw and one product per projection, and keeps
// the draws' first rows for the next head of the input, up to a byte budget.
#include "mechanisms/linear_attention.h"

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace attn {

/// E k and F v of one linformer:k:seed: [k, d] each.
struct LinformerProducts {
    Mat ek, fv;
};

class LinformerDraws {
public:
    /// The Mechanisms tab's budget: every draw of the sweep at 1,024 tokens (8 seeds of [2,048, 1,024] for E and F);
    /// at longer inputs the first rows are kept and the others drawn each time.
    static constexpr int64_t kDefaultBudgetBytes = int64_t { 256 } << 20;

    explicit LinformerDraws(int64_t budgetBytes = kDefaultBudgetBytes)
        : m_budget(budgetBytes)
    {
    }
    /// E k and F v of linformer:k:seed for every k of `sizes`, in that order, each the same bits as that spec
    /// computes alone: per projection one draw and one linformerProduct at the largest size, every size its first
    /// rows (linformerProjected). The draws' rows kept from an earlier call are read back (the same float32 numbers),
    /// the others drawn; the first rows are kept, as many for F as for E, while the budget allows. `checkpoint` runs
    /// before each block of rows drawn and each product (a caller stops by throwing from it; nothing half-drawn is
    /// kept). Another length than the kept draws' drops them: one input's are kept at a time.
    std::vector<LinformerProducts> products(const std::vector<int64_t>& sizes, const Mat& keys, const Mat& values,
        uint64_t seed, const std::function<void()>& checkpoint = {});
    /// How many calls of products() drew normals (every call that needed rows it did not keep).
    int64_t draws() const { return m_draws; }
    /// How many linformerProduct calls products() made (two per call: E k and F v, whatever the sizes).
    int64_t multiplies() const { return m_multiplies; }
    int64_t bytes() const { return m_bytes; }

private:
    int64_t m_budget;
    int64_t m_bytes = 0;
    int64_t m_draws = 0;
    int64_t m_multiplies = 0;
    int64_t m_tokens = 0; ///< the length of the kept draws
    /// per seed: the first rows of the E and F draws (subSeed(seed, 1) and (seed, 2)), as many rows each
    std::map<uint64_t, std::pair<LinformerNormals, LinformerNormals>> m_kept;
};

} // namespace attn
