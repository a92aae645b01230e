// SPDX-License-Identifier: MIT
#include "mechanisms/linformer_draws.h"

namespace attn {

LinformerProjections LinformerDraws::projections(int64_t k, int64_t tokens, uint64_t seed)
{
    if (tokens != m_tokens) {
        m_kept.clear();
        m_bytes = 0;
        m_tokens = tokens;
    }
    const auto key = std::make_pair(k, seed);
    if (const auto it = m_kept.find(key); it != m_kept.end())
        return { it->second.first.cast<double>(), it->second.second.cast<double>() };
    ++m_draws;
    LinformerProjections drawn = linformerProjections(k, tokens, seed);
    const int64_t size = 2 * k * tokens * static_cast<int64_t>(sizeof(float));
    if (m_bytes + size <= m_budget) {
        m_kept.emplace(key, std::make_pair(drawn.e.cast<float>(), drawn.f.cast<float>()));
        m_bytes += size;
    }
    return drawn;
}

} // namespace attn
