// SPDX-License-Identifier: MIT
#include "mechanisms/linformer_draws.h"

#include "mechanisms/random_stream.h"

#include <algorithm>

namespace attn {

std::vector<LinformerProducts> LinformerDraws::products(const std::vector<int64_t>& sizes, const Mat& keys,
    const Mat& values, uint64_t seed, const std::function<void()>& checkpoint)
{
    const int64_t tokens = keys.rows();
    if (tokens != m_tokens) {
        m_kept.clear();
        m_bytes = 0;
        m_tokens = tokens;
    }
    std::vector<LinformerProducts> out(sizes.size());
    std::vector<size_t> missing;
    int64_t largest = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (const auto it = m_kept.find({ sizes[i], seed }); it != m_kept.end()) {
            out[i] = { it->second.first.cast<double>() * keys, it->second.second.cast<double>() * values };
            continue;
        }
        missing.push_back(i);
        largest = std::max(largest, sizes[i]);
    }
    if (missing.empty()) return out;
    ++m_draws;
    // The sizes the budget has room for, kept once both E and F are drawn.
    std::map<size_t, std::pair<MatF, MatF>> keep;
    int64_t room = m_budget - m_bytes;
    for (const size_t i : missing)
        if (const int64_t bytes = 2 * sizes[i] * tokens * static_cast<int64_t>(sizeof(float)); bytes <= room) {
            keep[i];
            room -= bytes;
        }
    // E's sizes, then F's: one [largest, T] block of normals in memory at a time (128 MiB at 4,096 tokens).
    for (const uint64_t side : { 1u, 2u }) {
        const Mat normals = linformerNormals(largest, tokens, subSeed(seed, side));
        for (const size_t i : missing) {
            if (checkpoint) checkpoint();
            const Mat projection = linformerProjectionOf(normals, sizes[i]);
            (side == 1 ? out[i].ek : out[i].fv) = projection * (side == 1 ? keys : values);
            if (const auto kept = keep.find(i); kept != keep.end())
                (side == 1 ? kept->second.first : kept->second.second) = projection.cast<float>();
        }
    }
    for (auto& [i, projections] : keep)
        if (m_kept.emplace(std::make_pair(sizes[i], seed), std::move(projections)).second)
            m_bytes += 2 * sizes[i] * tokens * static_cast<int64_t>(sizeof(float));
    return out;
}

} // namespace attn
