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
    if (sizes.empty()) return out;
    const int64_t largest = *std::max_element(sizes.begin(), sizes.end());
    auto& kept = m_kept[seed];
    const int64_t have = std::min(largest, kept.first.rows());
    // Rows drawn at a time between two checkpoints (at 4,096 tokens 1 M normals, about 30 ms).
    constexpr int64_t kDrawRows = 256;
    const int64_t rowBytes = 2 * tokens * static_cast<int64_t>(sizeof(float)); // a row of E's draw and of F's
    const int64_t keep = std::min(largest, kept.first.rows() + std::max<int64_t>(0, m_budget - m_bytes) / rowBytes);
    if (have < largest) ++m_draws;
    LinformerNormals z(largest, tokens);
    std::pair<LinformerNormals, LinformerNormals> grown; // kept once both are drawn
    for (const uint64_t side : { 1u, 2u }) {
        const LinformerNormals& from = side == 1 ? kept.first : kept.second;
        std::copy_n(from.data(), have * tokens, z.data());
        for (int64_t row = have; row < largest; row += kDrawRows) {
            if (checkpoint) checkpoint();
            drawLinformerNormals(
                z.data() + row * tokens, row, std::min(kDrawRows, largest - row), tokens, subSeed(seed, side));
        }
        if (checkpoint) checkpoint();
        const Mat product = linformerProduct(z, side == 1 ? keys : values);
        ++m_multiplies;
        for (size_t i = 0; i < sizes.size(); ++i)
            (side == 1 ? out[i].ek : out[i].fv) = linformerProjected(product, sizes[i]);
        if (keep > from.rows()) (side == 1 ? grown.first : grown.second) = z.topRows(keep);
    }
    if (keep > kept.first.rows()) {
        m_bytes += (keep - kept.first.rows()) * rowBytes;
        kept = std::move(grown);
    }
    return out;
}

} // namespace attn
