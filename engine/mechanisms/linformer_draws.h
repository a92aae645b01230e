// SPDX-License-Identifier: MIT
#pragma once
// Linformer's seeded projections E, F depend on the projection size, the sequence length and the seed, not on the
// head: the Mechanisms tab's sweep drew the same normals again for every head of an input (at 1,024 tokens 67 M of
// them, about 2 s of CPU, per head switch). This keeps them for the next head, up to a byte budget.
#include "mechanisms/linear_attention.h"

#include <cstdint>
#include <map>
#include <utility>

namespace attn {

class LinformerDraws {
public:
    /// The Mechanisms tab's budget: every projection of the sweep at 1,024 tokens (sizes 1 .. 2,048, 8 seeds); at
    /// longer inputs the small sizes are kept and the largest drawn each time.
    static constexpr int64_t kDefaultBudgetBytes = int64_t { 256 } << 20;

    explicit LinformerDraws(int64_t budgetBytes = kDefaultBudgetBytes)
        : m_budget(budgetBytes)
    {
    }
    /// linformerProjections(k, tokens, seed): drawn on the first call, then read back while the budget keeps it
    /// (float32, which linformerProjection rounds to, so what comes back is what a new draw would give). Another
    /// length than the kept projections' drops them: one input's are kept at a time.
    LinformerProjections projections(int64_t k, int64_t tokens, uint64_t seed);
    /// How many times projections() drew (did not find them kept).
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
