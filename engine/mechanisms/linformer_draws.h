// SPDX-License-Identifier: MIT
#pragma once
// Linformer's seeded projections E, F depend on the projection size, the sequence length and the seed, not on the
// head: the Mechanisms tab's sweep drew the same normals again for every head of an input (at 1,024 tokens 67 M of
// them, about 2 s of CPU, per head switch). This keeps them for the next head, up to a byte budget, and draws the
// sizes it does not keep from one stream per seed: a size's normals are the first rows of a larger size's.
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
    /// The Mechanisms tab's budget: every projection of the sweep at 1,024 tokens (sizes 1 .. 2,048, 8 seeds); at
    /// longer inputs the small sizes are kept and the others drawn each time.
    static constexpr int64_t kDefaultBudgetBytes = int64_t { 256 } << 20;

    explicit LinformerDraws(int64_t budgetBytes = kDefaultBudgetBytes)
        : m_budget(budgetBytes)
    {
    }
    /// linformerProjections(k, T, seed) times `keys` and `values` [T, d] for every k of `sizes`, in that order. Kept
    /// projections are read back (float32, which linformerProjection rounds to, so they are what a new draw gives);
    /// the others are cut from one draw of the largest missing size's normals (linformerNormals), E's sizes and then
    /// F's, and kept while the budget allows. `checkpoint` runs before each size's projection (a caller stops by
    /// throwing from it; nothing half-drawn is kept). Another length than the kept projections' drops them: one
    /// input's are kept at a time.
    std::vector<LinformerProducts> products(const std::vector<int64_t>& sizes, const Mat& keys, const Mat& values,
        uint64_t seed, const std::function<void()>& checkpoint = {});
    /// How many times products() drew normals (once for every call with a size it did not keep).
    int64_t draws() const { return m_draws; }
    int64_t bytes() const { return m_bytes; }

private:
    using MatF = Eigen::MatrixXf;
    int64_t m_budget;
    int64_t m_bytes = 0;
    int64_t m_draws = 0;
    int64_t m_tokens = 0; ///< the length of the kept projections
    std::map<std::pair<int64_t, uint64_t>, std::pair<MatF, MatF>> m_kept;
};

} // namespace attn
